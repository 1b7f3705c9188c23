import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.NamedParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * ECIES in the JVM for the `asym` operation (platforms/PROTOCOL.md): cipherlab's own
 * construction (crates/ciphers/src/asym/ecies.rs), so cipherlab can decrypt what the JVM
 * encrypts: per message an ephemeral key pair on the recipient's curve, the shared secret
 * by X25519 or ECDH on P-256, a 256-bit key by HKDF-SHA-256 (salt: the ephemeral public
 * key then the recipient's; info "cipherlab ecies v1 aes-256-gcm"), AES-256-GCM with a
 * zero nonce (every message has its own key). Ciphertext: the ephemeral public key (raw
 * X25519, or the uncompressed P-256 point), the GCM ciphertext, the 16-byte tag.
 *
 * Key pairs and the agreement come from the provider where it has them, else from the
 * JDK's default (SunEC), as an application gets them; AES-GCM and HMAC through the
 * provider. Public keys travel raw: the X.509 encoding of these curves is a fixed
 * header followed by the raw key, so no provider-specific key class is needed.
 */
final class Ecies {
    private Ecies() {}

    static final byte[] INFO = "cipherlab ecies v1 aes-256-gcm".getBytes(StandardCharsets.US_ASCII);

    /** One curve: how to make its keys and agree, and its SubjectPublicKeyInfo header. */
    record Curve(String keyAlg, AlgorithmParameterSpec params, String agreement, byte[] spkiHeader, int rawLen) {}

    static Curve curve(String scheme) {
        return switch (scheme) {
            case "x25519-ecies" -> new Curve("XDH", NamedParameterSpec.X25519, "XDH",
                    HexFormat.of().parseHex("302a300506032b656e032100"), 32);
            case "p256-ecies" -> new Curve("EC", new ECGenParameterSpec("secp256r1"), "ECDH",
                    HexFormat.of().parseHex("3059301306072a8648ce3d020106082a8648ce3d030107034200"), 65);
            default -> null;
        };
    }

    /** The state of one scheme and provider: factories made once. */
    static final class Scheme {
        final Curve curve;
        final Provider jca;
        final KeyPairGenerator kpg;
        final KeyFactory kf;

        Scheme(Curve curve, Provider jca) throws Exception {
            this.curve = curve;
            this.jca = jca;
            KeyPairGenerator g;
            KeyFactory f;
            try {
                g = KeyPairGenerator.getInstance(curve.keyAlg(), jca);
                f = KeyFactory.getInstance(curve.keyAlg(), jca);
            } catch (NoSuchAlgorithmException e) {
                g = KeyPairGenerator.getInstance(curve.keyAlg());
                f = KeyFactory.getInstance(curve.keyAlg());
            }
            g.initialize(curve.params(), new SecureRandom());
            this.kpg = g;
            this.kf = f;
        }

        KeyAgreement agreement() throws Exception {
            try {
                return KeyAgreement.getInstance(curve.agreement(), jca);
            } catch (NoSuchAlgorithmException e) {
                return KeyAgreement.getInstance(curve.agreement());
            }
        }

        byte[] raw(PublicKey k) throws Runner.Refused {
            byte[] spki = k.getEncoded();
            byte[] head = curve.spkiHeader();
            if (spki.length != head.length + curve.rawLen()
                    || !Arrays.equals(Arrays.copyOf(spki, head.length), head)) {
                throw new Runner.Refused("unexpected public key encoding");
            }
            return Arrays.copyOfRange(spki, head.length, spki.length);
        }

        PublicKey fromRaw(byte[] raw) throws Exception {
            byte[] head = curve.spkiHeader();
            byte[] spki = Arrays.copyOf(head, head.length + raw.length);
            System.arraycopy(raw, 0, spki, head.length, raw.length);
            return kf.generatePublic(new X509EncodedKeySpec(spki));
        }

        byte[] messageKey(java.security.PrivateKey own, PublicKey peer, byte[] ephemeral, byte[] recipient)
                throws Exception {
            KeyAgreement ka = agreement();
            ka.init(own);
            ka.doPhase(peer, true);
            byte[] secret = ka.generateSecret();
            Mac mac = Mac.getInstance("HmacSHA256", jca);
            byte[] salt = Arrays.copyOf(ephemeral, ephemeral.length + recipient.length);
            System.arraycopy(recipient, 0, salt, ephemeral.length, recipient.length);
            mac.init(new SecretKeySpec(salt, "HmacSHA256"));
            byte[] prk = mac.doFinal(secret);
            mac.init(new SecretKeySpec(prk, "HmacSHA256"));
            mac.update(INFO);
            mac.update((byte) 1);
            return mac.doFinal(); // 32 bytes: one HKDF block is the whole key
        }

        /** The AES-256-GCM cipher of one message key; creating it is the `init` phase. */
        Cipher gcm(int mode, byte[] key) throws Exception {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding", jca);
            c.init(mode, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, new byte[12]));
            return c;
        }

        byte[] encrypt(PublicKey recipient, byte[] msg) throws Exception {
            KeyPair eph = kpg.generateKeyPair();
            byte[] ephRaw = raw(eph.getPublic());
            byte[] key = messageKey(eph.getPrivate(), recipient, ephRaw, raw(recipient));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.write(ephRaw);
            out.write(gcm(Cipher.ENCRYPT_MODE, key).doFinal(msg));
            return out.toByteArray();
        }

        byte[] decrypt(KeyPair pair, byte[] ct) throws Exception {
            int n = curve.rawLen();
            if (ct.length < n + 16) throw new Runner.AuthFailed();
            byte[] ephRaw = Arrays.copyOf(ct, n);
            byte[] key = messageKey(pair.getPrivate(), fromRaw(ephRaw), ephRaw, raw(pair.getPublic()));
            try {
                return gcm(Cipher.DECRYPT_MODE, key).doFinal(ct, n, ct.length - n);
            } catch (javax.crypto.AEADBadTagException e) {
                throw new Runner.AuthFailed();
            }
        }
    }

    /**
     * The private key as PKCS#8 version 1 (RFC 5208; what OpenSSL 3.0 reads). BouncyCastle
     * writes X25519 keys as version 2 (RFC 5958, the public key appended in a [1] field),
     * which OpenSSL 3.0 refuses: rebuilt here from the 32 raw private-key bytes.
     */
    static byte[] pkcs8v1(Curve curve, byte[] der) {
        HexFormat hex = HexFormat.of();
        byte[] v2Head = hex.parseHex("3051020101300506032b656e04220420");
        if (curve.rawLen() != 32 || der.length < v2Head.length + 32
                || !Arrays.equals(Arrays.copyOf(der, v2Head.length), v2Head)) {
            return der;
        }
        byte[] v1Head = hex.parseHex("302e020100300506032b656e04220420");
        byte[] out = Arrays.copyOf(v1Head, v1Head.length + 32);
        System.arraycopy(der, v2Head.length, out, v1Head.length, 32);
        return out;
    }

    /** The `asym` answer for an ECIES scheme ({@link Asym#answer}). */
    static Map<String, Object> serve(Curve curve, Runner.Prov prov, byte[] msg, int keygenReps, int reps,
            int warmup) throws Exception {
        Scheme s = new Scheme(curve, prov.jca);
        long t = System.nanoTime();
        KeyPair pair = s.kpg.generateKeyPair();
        byte[] ct = s.encrypt(pair.getPublic(), msg);
        if (!Arrays.equals(s.decrypt(pair, ct), msg)) throw new Runner.Refused("the message decrypted differs");
        long firstCall = System.nanoTime() - t;

        long[] keygen = new long[keygenReps];
        for (int i = 0; i < keygenReps; i++) {
            t = System.nanoTime();
            KeyPair p = s.kpg.generateKeyPair();
            keygen[i] = System.nanoTime() - t;
            Runner.sink ^= p.getPublic().getEncoded().length;
        }
        long warmStart = System.nanoTime();
        for (int i = 0; i < warmup; i++) round(s, pair, msg, null, 0);
        long warmupNs = System.nanoTime() - warmStart;
        long[][] samples = new long[3][reps];
        for (int i = 0; i < reps; i++) round(s, pair, msg, samples, i);

        byte[] privateKey = pkcs8v1(curve, pair.getPrivate().getEncoded());
        return Asym.answer(prov, s.kpg, privateKey, ct, keygen, samples, firstCall, warmup, warmupNs);
    }

    /**
     * init (the key agreement and AES-GCM objects created, as RSA's init creates its
     * Cipher), encrypt (ephemeral pair, agreement, HKDF, AES-GCM), decrypt; each timed alone.
     */
    static void round(Scheme s, KeyPair pair, byte[] msg, long[][] samples, int i) throws Exception {
        long t0 = System.nanoTime();
        KeyAgreement ka = s.agreement();
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding", s.jca);
        long t1 = System.nanoTime();
        byte[] ct = s.encrypt(pair.getPublic(), msg);
        long t2 = System.nanoTime();
        byte[] back = s.decrypt(pair, ct);
        long t3 = System.nanoTime();
        Runner.sink ^= back.length ^ ka.hashCode() ^ c.hashCode();
        if (samples != null) {
            samples[0][i] = t1 - t0;
            samples[1][i] = t2 - t1;
            samples[2][i] = t3 - t2;
        }
    }
}
