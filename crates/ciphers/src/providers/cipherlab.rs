//! The `cipherlab` provider: what we wrote ourselves -- the lightweight AEADs of
//! `cipherlab-lwc`, Skipjack, and RC4 with a reusable key schedule. What it supports is
//! what the catalogue's descriptors say: an algorithm with [`Algorithm::ours`]
//! (crate::catalogue::Algorithm::ours) set, whose constructors are in
//! [`super::ours`].

use crate::api::{Cipher, Provider, check_key};
use crate::error::Error;
use crate::spec::CipherSpec;

/// Our own implementations.
pub struct Cipherlab;

/// The provider's name.
pub(crate) const NAME: &str = "cipherlab";

impl Provider for Cipherlab {
    fn name(&self) -> &'static str {
        NAME
    }

    fn supports(&self, spec: &CipherSpec) -> bool {
        spec.algorithm.ours.is_some()
    }

    fn init(&self, spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, Error> {
        check_key(spec, key)?;
        match spec.algorithm.ours {
            Some(make) => make(spec, key),
            None => Err(Error::Unsupported {
                provider: NAME.into(),
                cipher: spec.to_string(),
                available: Vec::new(),
            }),
        }
    }
}
