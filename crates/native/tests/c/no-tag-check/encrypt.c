/* WRONG ON PURPOSE (a test must refuse it): decryption skips the tag check and
   returns the plaintext whatever the tag. Otherwise: Ascon-AEAD128, NIST SP 800-232 (August 2025), written for cipherlab's tests from the
   specification: section 3 (the permutation Ascon-p[rnd]: constant addition p_C with
   the constants of Table 5, substitution p_S, linear diffusion p_L) and section 4
   (Ascon-AEAD128: IV 0x00001000808C0001, rate 128 bits, 12 initialisation and
   finalisation rounds, 8 rounds per block; bytes are read into 64-bit words little-endian).
   Plain portable C: it is a reference for the tests, not a fast implementation. */
#include <stddef.h>
#include <stdint.h>

#include "api.h"

typedef uint64_t u64;

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

/* The padding byte 0x01 at byte position i (0..15) of the 128-bit rate. */
static void pad(u64 s[5], size_t i) { s[i / 8] ^= (u64)1 << (8 * (i % 8)); }

/* Byte i (0..15) of the rate. */
static unsigned char rate_byte(const u64 s[5], size_t i) {
    return (unsigned char)(s[i / 8] >> (8 * (i % 8)));
}

static void set_rate_byte(u64 s[5], size_t i, unsigned char b) {
    int shift = 8 * (int)(i % 8);
    s[i / 8] = (s[i / 8] & ~((u64)0xff << shift)) | ((u64)b << shift);
}

static void initialize(u64 s[5], const unsigned char *k, const unsigned char *npub,
                       const unsigned char *ad, unsigned long long adlen) {
    u64 k0 = load(k, 8), k1 = load(k + 8, 8);
    s[0] = 0x00001000808c0001ULL;
    s[1] = k0;
    s[2] = k1;
    s[3] = load(npub, 8);
    s[4] = load(npub + 8, 8);
    permute(s, 12);
    s[3] ^= k0;
    s[4] ^= k1;
    if (adlen > 0) {
        while (adlen >= 16) {
            s[0] ^= load(ad, 8);
            s[1] ^= load(ad + 8, 8);
            permute(s, 8);
            ad += 16;
            adlen -= 16;
        }
        for (size_t i = 0; i < adlen; i++) s[i / 8] ^= (u64)ad[i] << (8 * (i % 8));
        pad(s, (size_t)adlen);
        permute(s, 8);
    }
    /* domain separation: the last bit of the state */
    s[4] ^= 0x8000000000000000ULL;
}

static void finalize(u64 s[5], const unsigned char *k, unsigned char tag[16]) {
    u64 k0 = load(k, 8), k1 = load(k + 8, 8);
    s[2] ^= k0;
    s[3] ^= k1;
    permute(s, 12);
    store(tag, s[3] ^ k0, 8);
    store(tag + 8, s[4] ^ k1, 8);
}

int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen,
                        const unsigned char *m, unsigned long long mlen,
                        const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *nsec, const unsigned char *npub,
                        const unsigned char *k) {
    (void)nsec;
    u64 s[5];
    *clen = mlen + CRYPTO_ABYTES;
    initialize(s, k, npub, ad, adlen);
    while (mlen >= 16) {
        s[0] ^= load(m, 8);
        s[1] ^= load(m + 8, 8);
        store(c, s[0], 8);
        store(c + 8, s[1], 8);
        permute(s, 8);
        m += 16;
        c += 16;
        mlen -= 16;
    }
    for (size_t i = 0; i < mlen; i++) {
        unsigned char b = rate_byte(s, i) ^ m[i];
        set_rate_byte(s, i, b);
        c[i] = b;
    }
    pad(s, (size_t)mlen);
    finalize(s, k, c + mlen);
    return 0;
}

int crypto_aead_decrypt(unsigned char *m, unsigned long long *mlen,
                        unsigned char *nsec, const unsigned char *c,
                        unsigned long long clen, const unsigned char *ad,
                        unsigned long long adlen, const unsigned char *npub,
                        const unsigned char *k) {
    (void)nsec;
    if (clen < CRYPTO_ABYTES) return -1;
    u64 s[5];
    unsigned long long len = clen - CRYPTO_ABYTES;
    const unsigned char *tag = c + len;
    unsigned char *out = m;
    unsigned long long left = len;
    initialize(s, k, npub, ad, adlen);
    while (left >= 16) {
        u64 c0 = load(c, 8), c1 = load(c + 8, 8);
        store(out, s[0] ^ c0, 8);
        store(out + 8, s[1] ^ c1, 8);
        s[0] = c0;
        s[1] = c1;
        permute(s, 8);
        c += 16;
        out += 16;
        left -= 16;
    }
    for (size_t i = 0; i < left; i++) {
        unsigned char ci = c[i];
        out[i] = rate_byte(s, i) ^ ci;
        set_rate_byte(s, i, ci);
    }
    pad(s, (size_t)left);
    unsigned char expected[16];
    finalize(s, k, expected);
    /* constant-time comparison */
    unsigned char diff = 0;
    for (int i = 0; i < 16; i++) diff |= expected[i] ^ tag[i];
    (void)diff; /* WRONG ON PURPOSE: the tag is never checked */
    if (0) {
        for (unsigned long long i = 0; i < len; i++) m[i] = 0;
        return -1;
    }
    *mlen = len;
    return 0;
}
