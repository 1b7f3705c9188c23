//! The run-time provider registry: a registered provider is found by name (and through
//! `init`), a clashing name is refused, and the defaults never change.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use cipherlab_ciphers::providers::{self, Cipherlab};
use cipherlab_ciphers::{Cipher, CipherSpec, Error, Provider};

/// A provider that is the `cipherlab` one under another name.
struct Renamed(&'static str);

impl Provider for Renamed {
    fn name(&self) -> &'static str {
        self.0
    }
    fn supports(&self, spec: &CipherSpec) -> bool {
        spec.to_string() == "ascon-aead128"
    }
    fn init(&self, spec: &CipherSpec, key: &[u8]) -> Result<Box<dyn Cipher>, Error> {
        Cipherlab.init(spec, key)
    }
}

#[test]
fn registered_providers_are_found_and_clashes_refused() {
    let spec = CipherSpec::parse("ascon-aead128").unwrap();
    assert!(providers::by_name("my-ascon").is_err());
    providers::register(Box::leak(Box::new(Renamed("my-ascon")))).unwrap();
    assert_eq!(providers::by_name("MY-ASCON").unwrap().name(), "my-ascon");
    assert!(providers::supporting(&spec).contains(&"my-ascon"));
    let mut c = providers::init(&spec, &[1; 16], Some("my-ascon")).unwrap();
    let mut buf = vec![0u8; 16];
    assert_eq!(c.encrypt(&[2; 16], b"", &mut buf, 0).unwrap(), 16);
    // The default stays the built-in one.
    assert_eq!(providers::default_for(&spec).unwrap().name(), "cipherlab");
    // A built-in name, in any case, and a name taken already, are refused.
    for name in ["cipherlab", "OpenSSL", "ring+openssl", "my-ascon"] {
        let e = providers::register(Box::leak(Box::new(Renamed(name)))).unwrap_err();
        assert!(e.to_string().contains("choose another"), "{name}: {e}");
    }
    assert_eq!(providers::registered().len(), 1);
}
