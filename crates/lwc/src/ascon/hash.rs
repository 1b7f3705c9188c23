//! The Ascon hash functions and XOFs: Ascon-Hash256, Ascon-XOF128 and Ascon-CXOF128
//! (NIST SP 800-232, little-endian, p^12 throughout), and Ascon-Hash, -Hasha, -Xof,
//! -Xofa (v1.2, big-endian; the "a" variants use p^8 between blocks).
//!
//! All are sponges with a rate of 8 bytes (the word `x0`). The initial states
//! (IV followed by p^12) are computed at compile time. Long inputs are absorbed by a
//! loop that, on x86-64, is also compiled with BMI1/BMI2 and chosen at run time.
//!
//! Constant time: the permutation is AND/NOT/XOR and fixed rotations on whole words,
//! and the sponge branches only on the (public) input and output lengths. No table
//! look-ups.
//!
//! The hashed data may be secret (a key, a password): every hasher, XOF and output
//! reader wipes its state and buffered bytes when dropped (`ZeroizeOnDrop`).

use super::common::{const_p12, load, pad_byte, store};
use crate::permutation::ascon::AsconState;
use core::fmt;
use digest::consts::U32;
use digest::{
    ExtendableOutput, ExtendableOutputReset, FixedOutput, FixedOutputReset, HashMarker, Output,
    OutputSizeUser, Reset, TryCustomizedInit, Update, XofReader,
};
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Applies `ROUNDS` rounds (12 or 8).
#[inline(always)]
fn permute<const ROUNDS: usize>(s: &mut AsconState) {
    s.permute_const::<ROUNDS>();
}

/// The absorbing half of the sponge: the state and a partial block.
#[derive(Clone, Debug)]
struct Sponge {
    s: AsconState,
    buf: [u8; 8],
    pos: usize,
}

impl Drop for Sponge {
    fn drop(&mut self) {
        self.s.0.zeroize();
        self.buf.zeroize();
    }
}

impl Sponge {
    const fn new(init: [u64; 5]) -> Self {
        Self {
            s: AsconState(init),
            buf: [0; 8],
            pos: 0,
        }
    }

    /// Absorbs `data`; `B` rounds after every full block.
    #[inline]
    fn absorb<const BE: bool, const B: usize>(&mut self, mut data: &[u8]) {
        if self.pos > 0 {
            let take = (8 - self.pos).min(data.len());
            self.buf[self.pos..self.pos + take].copy_from_slice(&data[..take]);
            self.pos += take;
            data = &data[take..];
            if self.pos < 8 {
                return;
            }
            self.s.0[0] ^= load::<BE>(self.buf);
            permute::<B>(&mut self.s);
            self.pos = 0;
        }
        let (blocks, rem) = data.as_chunks::<8>();
        absorb_blocks::<BE, B>(&mut self.s, blocks);
        self.buf[..rem.len()].copy_from_slice(rem);
        self.pos = rem.len();
    }

    /// Absorbs the padded last block and applies p^12. The sponge is then ready to
    /// squeeze (or, for the CXOF customization string, to absorb the message).
    #[inline]
    fn pad_and_p12<const BE: bool>(&mut self) {
        let mut last = [0u8; 8];
        last[..self.pos].copy_from_slice(&self.buf[..self.pos]);
        last[self.pos] = pad_byte::<BE>();
        self.s.0[0] ^= load::<BE>(last);
        permute::<12>(&mut self.s);
        self.pos = 0;
    }
}

/// Absorbs full blocks, each followed by `B` rounds.
#[inline(always)]
fn absorb_blocks_inline<const BE: bool, const B: usize>(s: &mut AsconState, blocks: &[[u8; 8]]) {
    let mut st = *s;
    for blk in blocks {
        st.0[0] ^= load::<BE>(*blk);
        permute::<B>(&mut st);
    }
    *s = st;
}

#[inline(never)]
fn absorb_blocks_portable<const BE: bool, const B: usize>(s: &mut AsconState, blocks: &[[u8; 8]]) {
    absorb_blocks_inline::<BE, B>(s, blocks);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
#[inline(never)]
fn absorb_blocks_bmi<const BE: bool, const B: usize>(s: &mut AsconState, blocks: &[[u8; 8]]) {
    absorb_blocks_inline::<BE, B>(s, blocks);
}

/// Absorbs full blocks with the BMI1/BMI2 build of the loop when the CPU has them
/// (see [`super::cpu`]), else the baseline build.
#[inline]
fn absorb_blocks<const BE: bool, const B: usize>(s: &mut AsconState, blocks: &[[u8; 8]]) {
    if blocks.is_empty() {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::has_bmi() {
        #[allow(unsafe_code)]
        // SAFETY: `absorb_blocks_bmi` only needs BMI1 and BMI2, which `has_bmi` has
        // just confirmed with `cpuid` (or the build enables them).
        unsafe {
            absorb_blocks_bmi::<BE, B>(s, blocks);
        }
        return;
    }
    absorb_blocks_portable::<BE, B>(s, blocks);
}

/// The squeezing half: the state and the bytes of the current output block not yet
/// handed out.
#[derive(Clone, Debug)]
struct Squeezer {
    s: AsconState,
    block: [u8; 8],
    pos: usize,
}

impl Drop for Squeezer {
    fn drop(&mut self) {
        self.s.0.zeroize();
        self.block.zeroize();
    }
}

impl Squeezer {
    fn new<const BE: bool>(s: AsconState) -> Self {
        Self {
            block: store::<BE>(s.0[0]),
            s,
            pos: 0,
        }
    }

    /// Writes the next `out.len()` output bytes; `B` rounds between output blocks.
    #[inline]
    fn read<const BE: bool, const B: usize>(&mut self, mut out: &mut [u8]) {
        while !out.is_empty() {
            if self.pos == 8 {
                permute::<B>(&mut self.s);
                self.block = store::<BE>(self.s.0[0]);
                self.pos = 0;
            }
            let take = (8 - self.pos).min(out.len());
            let (head, tail) = out.split_at_mut(take);
            head.copy_from_slice(&self.block[self.pos..self.pos + take]);
            self.pos += take;
            out = tail;
        }
    }
}

macro_rules! fixed_hash {
    ($(#[$doc:meta])* $name:ident, $iv:expr, $be:literal, $b:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name {
            sponge: Sponge,
        }

        impl $name {
            const INIT: [u64; 5] = const_p12([$iv, 0, 0, 0, 0]);
        }

        impl Default for $name {
            #[inline]
            fn default() -> Self {
                Self { sponge: Sponge::new(Self::INIT) }
            }
        }

        impl HashMarker for $name {}

        impl ZeroizeOnDrop for $name {}

        impl OutputSizeUser for $name {
            type OutputSize = U32;
        }

        impl Update for $name {
            #[inline]
            fn update(&mut self, data: &[u8]) {
                self.sponge.absorb::<$be, $b>(data);
            }
        }

        impl FixedOutput for $name {
            #[inline]
            fn finalize_into(mut self, out: &mut Output<Self>) {
                self.sponge.pad_and_p12::<$be>();
                Squeezer::new::<$be>(self.sponge.s).read::<$be, $b>(out);
            }
        }

        impl Reset for $name {
            #[inline]
            fn reset(&mut self) {
                *self = Self::default();
            }
        }

        impl FixedOutputReset for $name {
            #[inline]
            fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
                self.clone().finalize_into(out);
                self.reset();
            }
        }
    };
}

macro_rules! xof {
    ($(#[$doc:meta])* $name:ident, $(#[$rdoc:meta])* $reader:ident, $iv:expr, $be:literal, $b:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name {
            sponge: Sponge,
        }

        $(#[$rdoc])*
        #[derive(Clone, Debug)]
        pub struct $reader {
            squeezer: Squeezer,
        }

        impl $name {
            const INIT: [u64; 5] = const_p12([$iv, 0, 0, 0, 0]);
        }

        impl Default for $name {
            #[inline]
            fn default() -> Self {
                Self { sponge: Sponge::new(Self::INIT) }
            }
        }

        impl HashMarker for $name {}

        impl ZeroizeOnDrop for $name {}

        impl Update for $name {
            #[inline]
            fn update(&mut self, data: &[u8]) {
                self.sponge.absorb::<$be, $b>(data);
            }
        }

        impl ExtendableOutput for $name {
            type Reader = $reader;

            #[inline]
            fn finalize_xof(mut self) -> $reader {
                self.sponge.pad_and_p12::<$be>();
                $reader { squeezer: Squeezer::new::<$be>(self.sponge.s) }
            }
        }

        impl Reset for $name {
            #[inline]
            fn reset(&mut self) {
                *self = Self::default();
            }
        }

        impl ExtendableOutputReset for $name {
            #[inline]
            fn finalize_xof_reset(&mut self) -> $reader {
                let r = self.clone().finalize_xof();
                self.reset();
                r
            }
        }

        impl ZeroizeOnDrop for $reader {}

        impl XofReader for $reader {
            #[inline]
            fn read(&mut self, buffer: &mut [u8]) {
                self.squeezer.read::<$be, $b>(buffer);
            }
        }
    };
}

fixed_hash!(
    /// Ascon-Hash256 (NIST SP 800-232): 32-byte digest, p^12 throughout,
    /// little-endian. Use it through [`digest::Digest`].
    AsconHash256,
    0x0000_0801_00cc_0002,
    false,
    12
);

xof!(
    /// Ascon-XOF128 (NIST SP 800-232): extendable output, p^12 throughout,
    /// little-endian. A shorter output is a prefix of a longer one.
    AsconXof128,
    /// Output reader of [`AsconXof128`].
    AsconXof128Reader,
    0x0000_0800_00cc_0003,
    false,
    12
);

fixed_hash!(
    /// Ascon-Hash (v1.2): 32-byte digest, p^12 throughout, big-endian.
    AsconHash,
    0x0040_0c00_0000_0100,
    true,
    12
);

fixed_hash!(
    /// Ascon-Hasha (v1.2): 32-byte digest, p^8 between blocks, big-endian.
    AsconHasha,
    0x0040_0c04_0000_0100,
    true,
    8
);

xof!(
    /// Ascon-Xof (v1.2): extendable output, p^12 throughout, big-endian.
    AsconXof,
    /// Output reader of [`AsconXof`].
    AsconXofReader,
    0x0040_0c00_0000_0000,
    true,
    12
);

xof!(
    /// Ascon-Xofa (v1.2): extendable output, p^8 between blocks, big-endian.
    AsconXofa,
    /// Output reader of [`AsconXofa`].
    AsconXofaReader,
    0x0040_0c04_0000_0000,
    true,
    8
);

/// Ascon-CXOF128 IV (SP 800-232).
const CXOF_IV: u64 = 0x0000_0800_00cc_0004;

/// Longest customization string of Ascon-CXOF128, in bytes (2048 bits).
pub const CXOF128_MAX_CUSTOMIZATION: usize = 256;

/// The customization string given to [`AsconCxof128`] is longer than
/// [`CXOF128_MAX_CUSTOMIZATION`] (256) bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CustomizationTooLong;

impl fmt::Display for CustomizationTooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Ascon-CXOF128 customization string longer than 256 bytes")
    }
}

impl core::error::Error for CustomizationTooLong {}

/// Ascon-CXOF128 (NIST SP 800-232): Ascon-XOF128 with a customization string `Z` of
/// at most 256 bytes, absorbed (after its bit length) before the message.
///
/// ```
/// use cipherlab_lwc::AsconCxof128;
/// use cipherlab_lwc::digest::{ExtendableOutput, Update, XofReader};
///
/// let mut h = AsconCxof128::new(b"my app").unwrap();
/// h.update(b"message");
/// let mut out = [0u8; 32];
/// h.finalize_xof().read(&mut out);
/// assert!(AsconCxof128::new(&[0u8; 257]).is_err());
/// ```
#[derive(Clone, Debug)]
pub struct AsconCxof128 {
    sponge: Sponge,
    /// The state right after the customization string, for [`Reset`].
    customized: AsconState,
}

/// Output reader of [`AsconCxof128`].
#[derive(Clone, Debug)]
pub struct AsconCxof128Reader {
    squeezer: Squeezer,
}

impl AsconCxof128 {
    const INIT: [u64; 5] = const_p12([CXOF_IV, 0, 0, 0, 0]);

    /// Starts a hash with customization string `customization`.
    ///
    /// # Errors
    /// [`CustomizationTooLong`] if `customization` is longer than 256 bytes.
    pub fn new(customization: &[u8]) -> Result<Self, CustomizationTooLong> {
        if customization.len() > CXOF128_MAX_CUSTOMIZATION {
            return Err(CustomizationTooLong);
        }
        let mut sponge = Sponge::new(Self::INIT);
        // The bit length of Z as a 64-bit little-endian block, then Z padded.
        sponge.s.0[0] ^= (customization.len() as u64) * 8;
        permute::<12>(&mut sponge.s);
        sponge.absorb::<false, 12>(customization);
        sponge.pad_and_p12::<false>();
        Ok(Self {
            customized: sponge.s,
            sponge,
        })
    }
}

impl Default for AsconCxof128 {
    /// The empty customization string (which is not the same function as
    /// [`AsconXof128`]: the IVs differ).
    fn default() -> Self {
        match Self::new(&[]) {
            Ok(h) => h,
            Err(_) => unreachable!("the empty string is short enough"),
        }
    }
}

impl TryCustomizedInit for AsconCxof128 {
    type Error = CustomizationTooLong;

    fn try_new_customized(customization: &[u8]) -> Result<Self, Self::Error> {
        Self::new(customization)
    }
}

impl HashMarker for AsconCxof128 {}

impl Drop for AsconCxof128 {
    fn drop(&mut self) {
        // The sponge wipes itself; this is the saved post-customization state.
        self.customized.0.zeroize();
    }
}

impl ZeroizeOnDrop for AsconCxof128 {}

impl ZeroizeOnDrop for AsconCxof128Reader {}

impl Update for AsconCxof128 {
    #[inline]
    fn update(&mut self, data: &[u8]) {
        self.sponge.absorb::<false, 12>(data);
    }
}

impl ExtendableOutput for AsconCxof128 {
    type Reader = AsconCxof128Reader;

    #[inline]
    fn finalize_xof(mut self) -> AsconCxof128Reader {
        self.sponge.pad_and_p12::<false>();
        AsconCxof128Reader {
            squeezer: Squeezer::new::<false>(self.sponge.s),
        }
    }
}

impl Reset for AsconCxof128 {
    /// Back to the state right after the customization string.
    #[inline]
    fn reset(&mut self) {
        self.sponge = Sponge::new(self.customized.0);
    }
}

impl ExtendableOutputReset for AsconCxof128 {
    #[inline]
    fn finalize_xof_reset(&mut self) -> AsconCxof128Reader {
        let r = self.clone().finalize_xof();
        self.reset();
        r
    }
}

impl XofReader for AsconCxof128Reader {
    #[inline]
    fn read(&mut self, buffer: &mut [u8]) {
        self.squeezer.read::<false, 12>(buffer);
    }
}
