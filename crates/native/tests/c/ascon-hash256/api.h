/* Ascon-Hash256 (NIST SP 800-232) under the NIST LWC / SUPERCOP crypto_hash API.
   Written for cipherlab's tests from the specification. */
#define CRYPTO_BYTES 32
