/* Ascon-AEAD128 (NIST SP 800-232) under the NIST LWC / SUPERCOP crypto_aead API.
   Written for cipherlab's tests from the specification. */
#define CRYPTO_KEYBYTES 16
#define CRYPTO_NSECBYTES 0
#define CRYPTO_NPUBBYTES 16
#define CRYPTO_ABYTES 16
#define CRYPTO_NOOVERLAP 1
