/* WRONG ON PURPOSE (a test must refuse it): the IV is 0x0000080100CC0003, not
   0x0000080100CC0002.
   Otherwise: Ascon-Hash256, NIST SP 800-232 (August 2025), written for cipherlab's tests from the
   specification: section 3 (the permutation Ascon-p[rnd]: constant addition p_C with
   the constants of Table 5, substitution p_S, linear diffusion p_L) and section 5.1
   (Ascon-Hash256: IV 0x0000080100CC0002, rate 64 bits, 12 rounds everywhere; the message
   padded with a 1 bit and zeros to whole 64-bit blocks; 256 bits squeezed 64 at a time;
   bytes are read into and written from 64-bit words little-endian).
   Plain portable C: it is a reference for the tests, not a fast implementation. */
#include <stddef.h>
#include <stdint.h>

#include "api.h"

typedef uint64_t u64;

/* Section 5.1: Ascon-Hash256's initial value. */
#define ASCON_HASH256_IV 0x0000080100cc0003ULL

/* Table 5: the round constants c_0 .. c_15; Ascon-p[rnd] uses the last rnd of them. */
static const u64 ROUND_CONSTANT[16] = {
    0x3c, 0x2d, 0x1e, 0x0f, 0xf0, 0xe1, 0xd2, 0xc3,
    0xb4, 0xa5, 0x96, 0x87, 0x78, 0x69, 0x5a, 0x4b,
};

static u64 ror(u64 x, int n) { return (x >> n) | (x << (64 - n)); }

static void permute(u64 s[5], int rounds) {
    for (int i = 16 - rounds; i < 16; i++) {
        /* p_C */
        s[2] ^= ROUND_CONSTANT[i];
        /* p_S: the 5-bit S-box applied to the 64 columns, bitsliced */
        s[0] ^= s[4];
        s[4] ^= s[3];
        s[2] ^= s[1];
        u64 t0 = ~s[0] & s[1];
        u64 t1 = ~s[1] & s[2];
        u64 t2 = ~s[2] & s[3];
        u64 t3 = ~s[3] & s[4];
        u64 t4 = ~s[4] & s[0];
        s[0] ^= t1;
        s[1] ^= t2;
        s[2] ^= t3;
        s[3] ^= t4;
        s[4] ^= t0;
        s[1] ^= s[0];
        s[0] ^= s[4];
        s[3] ^= s[2];
        s[2] = ~s[2];
        /* p_L */
        s[0] ^= ror(s[0], 19) ^ ror(s[0], 28);
        s[1] ^= ror(s[1], 61) ^ ror(s[1], 39);
        s[2] ^= ror(s[2], 1) ^ ror(s[2], 6);
        s[3] ^= ror(s[3], 10) ^ ror(s[3], 17);
        s[4] ^= ror(s[4], 7) ^ ror(s[4], 41);
    }
}

/* n <= 8 bytes, little-endian. */
static u64 load(const unsigned char *b, size_t n) {
    u64 x = 0;
    for (size_t i = 0; i < n; i++) x |= (u64)b[i] << (8 * i);
    return x;
}

static void store(unsigned char *b, u64 x, size_t n) {
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(x >> (8 * i));
}

int crypto_hash(unsigned char *out, const unsigned char *in, unsigned long long inlen) {
    u64 s[5] = {ASCON_HASH256_IV, 0, 0, 0, 0};
    permute(s, 12);
    /* Absorbing: every full 64-bit block, then the last (possibly empty) partial block
       with the padding bit after its bytes; the permutation after each. */
    while (inlen >= 8) {
        s[0] ^= load(in, 8);
        permute(s, 12);
        in += 8;
        inlen -= 8;
    }
    s[0] ^= load(in, (size_t)inlen);
    s[0] ^= (u64)1 << (8 * inlen);
    permute(s, 12);
    /* Squeezing: 64 bits of the rate at a time, the permutation between blocks. */
    for (int i = 0; i < CRYPTO_BYTES / 8; i++) {
        store(out + 8 * i, s[0], 8);
        if (i + 1 < CRYPTO_BYTES / 8) permute(s, 12);
    }
    return 0;
}
