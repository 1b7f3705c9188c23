//! Every block-cipher mode over any RustCrypto `cipher` 0.5 block cipher: ECB and CBC
//! (PKCS#7 or no padding), CFB, CFB8, CFB1, OFB and CTR. The key schedule is built once;
//! each message borrows it (`&C` is itself a block cipher), so nothing is cloned or
//! allocated per message. Used by the `rustcrypto` and `cipherlab` (Skipjack) providers.

use cipher::array::Array;
use cipher::{
    BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, InnerIvInit,
    StreamCipher, StreamCipherCoreWrapper,
};

use crate::api::{Cipher, check_iv_ad, check_room};
use crate::error::Error;
use crate::padding;
use crate::spec::{CipherSpec, Mode};

/// The keystream modes whose state type depends on the block size (CTR's counter is the
/// whole IV block, big-endian: 128-bit for 16-byte blocks, 64-bit for 8-byte blocks), so
/// they are implemented per cipher.
pub(crate) trait StreamModes: BlockCipherEncrypt + Sized {
    /// XORs the CTR keystream for `iv` into `data`.
    fn ctr_apply(&self, iv: &[u8], data: &mut [u8]) -> Result<(), Error>;
    /// XORs the OFB keystream for `iv` into `data`.
    fn ofb_apply(&self, iv: &[u8], data: &mut [u8]) -> Result<(), Error>;
}

macro_rules! stream_modes {
    ($flavor:ident: $($t:ty),+) => {$(
        impl StreamModes for $t {
            fn ctr_apply(&self, iv: &[u8], data: &mut [u8]) -> Result<(), Error> {
                let core = ctr::CtrCore::<&$t, ctr::flavors::$flavor>::inner_iv_slice_init(self, iv).map_err(|_| iv_error())?;
                StreamCipherCoreWrapper::from_core(core)
                    .try_apply_keystream(data)
                    .map_err(|_| Error::Provider { provider: "rustcrypto", message: "CTR counter would wrap".into() })
            }
            fn ofb_apply(&self, iv: &[u8], data: &mut [u8]) -> Result<(), Error> {
                let core = ofb::OfbCore::<&$t>::inner_iv_slice_init(self, iv).map_err(|_| iv_error())?;
                StreamCipherCoreWrapper::from_core(core).apply_keystream(data);
                Ok(())
            }
        }
    )+};
}
stream_modes!(Ctr128BE: aes::Aes128, aes::Aes192, aes::Aes256);
stream_modes!(Ctr64BE: des::Des, des::TdesEde2, des::TdesEde3, blowfish::Blowfish, rc2::Rc2, crate::skipjack::Skipjack);

fn iv_error() -> Error {
    Error::Provider {
        provider: "rustcrypto",
        message: "IV length rejected by the mode".into(),
    }
}

/// A block cipher with its key schedule, ready for any mode.
pub(crate) struct BlockModeCipher<C> {
    spec: CipherSpec,
    provider: &'static str,
    cipher: C,
}

impl<C> BlockModeCipher<C> {
    pub(crate) fn new(spec: CipherSpec, provider: &'static str, cipher: C) -> Self {
        BlockModeCipher {
            spec,
            provider,
            cipher,
        }
    }
}

/// Views `buf` (a whole number of blocks) as blocks.
fn blocks<N: cipher::array::ArraySize>(buf: &mut [u8]) -> &mut [Array<u8, N>] {
    Array::slice_as_chunks_mut(buf).0
}

fn aligned(len: usize, block: usize) -> Result<(), Error> {
    if len.is_multiple_of(block) {
        Ok(())
    } else {
        Err(Error::NotBlockAligned { len, block })
    }
}

impl<C> Cipher for BlockModeCipher<C>
where
    C: BlockCipherEncrypt + BlockCipherDecrypt + StreamModes + Send,
{
    fn spec(&self) -> &CipherSpec {
        &self.spec
    }

    fn provider(&self) -> &'static str {
        self.provider
    }

    fn encrypt(
        &mut self,
        iv: &[u8],
        ad: &[u8],
        buf: &mut [u8],
        msg_len: usize,
    ) -> Result<usize, Error> {
        check_iv_ad(&self.spec, iv, ad)?;
        let out_len = check_room(&self.spec, buf, msg_len)?;
        let bs = self.spec.algorithm.block_bytes;
        let c = &self.cipher;
        let mode = self.spec.mode.unwrap_or(Mode::Ecb);
        if mode.pads() {
            let n = if self.spec.pads() {
                padding::pad(buf, msg_len, bs)
            } else {
                msg_len
            };
            aligned(n, bs)?;
            let data = blocks::<C::BlockSize>(&mut buf[..n]);
            match mode {
                Mode::Ecb => c.encrypt_blocks(data),
                _ => cbc::Encryptor::<&C>::inner_iv_slice_init(c, iv)
                    .map_err(|_| iv_error())?
                    .encrypt_blocks(data),
            }
            return Ok(n);
        }
        let data = &mut buf[..msg_len];
        match mode {
            Mode::Cfb => cfb_mode::Encryptor::<&C>::inner_iv_slice_init(c, iv)
                .map_err(|_| iv_error())?
                .encrypt(data),
            Mode::Cfb8 => cfb8::Encryptor::<&C>::inner_iv_slice_init(c, iv)
                .map_err(|_| iv_error())?
                .encrypt(data),
            Mode::Cfb1 => cfb1::encrypt(c, iv, data),
            Mode::Ofb => c.ofb_apply(iv, data)?,
            Mode::Ctr => c.ctr_apply(iv, data)?,
            Mode::Ecb | Mode::Cbc | Mode::Gcm => unreachable_mode(mode)?,
        }
        Ok(out_len)
    }

    fn decrypt(&mut self, iv: &[u8], ad: &[u8], buf: &mut [u8]) -> Result<usize, Error> {
        check_iv_ad(&self.spec, iv, ad)?;
        let bs = self.spec.algorithm.block_bytes;
        let c = &self.cipher;
        let mode = self.spec.mode.unwrap_or(Mode::Ecb);
        if mode.pads() {
            aligned(buf.len(), bs)?;
            let data = blocks::<C::BlockSize>(buf);
            match mode {
                Mode::Ecb => c.decrypt_blocks(data),
                _ => cbc::Decryptor::<&C>::inner_iv_slice_init(c, iv)
                    .map_err(|_| iv_error())?
                    .decrypt_blocks(data),
            }
            return if self.spec.pads() {
                padding::unpad(buf, bs)
            } else {
                Ok(buf.len())
            };
        }
        match mode {
            Mode::Cfb => cfb_mode::Decryptor::<&C>::inner_iv_slice_init(c, iv)
                .map_err(|_| iv_error())?
                .decrypt(buf),
            Mode::Cfb8 => cfb8::Decryptor::<&C>::inner_iv_slice_init(c, iv)
                .map_err(|_| iv_error())?
                .decrypt(buf),
            Mode::Cfb1 => cfb1::decrypt(c, iv, buf),
            Mode::Ofb => c.ofb_apply(iv, buf)?,
            Mode::Ctr => c.ctr_apply(iv, buf)?,
            Mode::Ecb | Mode::Cbc | Mode::Gcm => unreachable_mode(mode)?,
        }
        Ok(buf.len())
    }
}

fn unreachable_mode(mode: Mode) -> Result<(), Error> {
    Err(Error::Provider {
        provider: "rustcrypto",
        message: format!("mode {} is not a block mode here", mode.as_str()),
    })
}

/// CFB with 1-bit segments (NIST SP 800-38A), which no RustCrypto crate offers: one
/// block encryption per bit, most significant bit of each byte first.
pub mod cfb1 {
    use cipher::BlockCipherEncrypt;
    use cipher::array::Array;

    use crate::error::Error;

    /// Encrypts `bits` (one bit per element, 0 or 1) in place. The IV must be one block.
    pub fn encrypt_bits<C: BlockCipherEncrypt>(
        c: &C,
        iv: &[u8],
        bits: &mut [u8],
    ) -> Result<(), Error> {
        check_iv::<C>(iv)?;
        run(c, iv, bits, true);
        Ok(())
    }

    /// Decrypts `bits` (one bit per element, 0 or 1) in place. The IV must be one block.
    pub fn decrypt_bits<C: BlockCipherEncrypt>(
        c: &C,
        iv: &[u8],
        bits: &mut [u8],
    ) -> Result<(), Error> {
        check_iv::<C>(iv)?;
        run(c, iv, bits, false);
        Ok(())
    }

    fn check_iv<C: BlockCipherEncrypt>(iv: &[u8]) -> Result<(), Error> {
        let block = <C as cipher::BlockSizeUser>::block_size();
        if iv.len() == block {
            Ok(())
        } else {
            Err(Error::IvLength {
                cipher: "CFB1".into(),
                expected: block,
                got: iv.len(),
            })
        }
    }

    fn run<C: BlockCipherEncrypt>(c: &C, iv: &[u8], bits: &mut [u8], encrypting: bool) {
        let mut reg = register::<C>(iv);
        for bit in bits {
            *bit = step(c, &mut reg, *bit & 1, encrypting);
        }
    }

    fn register<C: BlockCipherEncrypt>(iv: &[u8]) -> Array<u8, C::BlockSize> {
        let mut reg: Array<u8, C::BlockSize> = Array::default();
        reg.copy_from_slice(iv);
        reg
    }

    /// One CFB1 step: returns the output bit and shifts the feedback bit into `reg`.
    fn step<C: BlockCipherEncrypt>(
        c: &C,
        reg: &mut Array<u8, C::BlockSize>,
        input: u8,
        encrypting: bool,
    ) -> u8 {
        let mut ks = reg.clone();
        c.encrypt_block(&mut ks);
        let result = input ^ (ks[0] >> 7);
        let feedback = if encrypting { result } else { input };
        let n = reg.len();
        for i in 0..n {
            let next = if i + 1 < n { reg[i + 1] >> 7 } else { feedback };
            reg[i] = (reg[i] << 1) | next;
        }
        result
    }

    fn bytes<C: BlockCipherEncrypt>(c: &C, iv: &[u8], data: &mut [u8], encrypting: bool) {
        let mut reg = register::<C>(iv);
        for byte in data {
            let mut out = 0u8;
            for i in (0..8).rev() {
                out |= step(c, &mut reg, (*byte >> i) & 1, encrypting) << i;
            }
            *byte = out;
        }
    }

    /// Encrypts whole bytes, bit by bit.
    pub fn encrypt<C: BlockCipherEncrypt>(c: &C, iv: &[u8], data: &mut [u8]) {
        bytes(c, iv, data, true);
    }

    /// Decrypts whole bytes, bit by bit.
    pub fn decrypt<C: BlockCipherEncrypt>(c: &C, iv: &[u8], data: &mut [u8]) {
        bytes(c, iv, data, false);
    }
}
