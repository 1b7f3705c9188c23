import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.SecureRandom;
import java.security.spec.MGF1ParameterSpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;

/**
 * The `asym` operation (platforms/PROTOCOL.md): RSA in the JVM as the Java stream-security
 * paper timed it (Fig. 9): key pair generation, cipher creation + init with the public
 * key, the public-key operation (encrypt) and the private-key operation (decrypt), each
 * timed alone. Schemes use cipherlab's names: `rsa-BITS-pkcs1` (PKCS#1 v1.5, the paper's)
 * and `rsa-BITS-oaep` (OAEP with SHA-256 and MGF1-SHA-256, as cipherlab's); and
 * `x25519-ecies`, `p256-ecies`, cipherlab's ECIES ({@link Ecies}).
 */
final class Asym {
    private Asym() {}

    static final Pattern RSA = Pattern.compile("rsa-(1024|2048|3072|4096)-(pkcs1|oaep)");

    static Map<String, Object> serve(Map<String, Object> req) throws Exception {
        String scheme = String.valueOf(req.get("scheme"));
        Matcher m = RSA.matcher(scheme);
        Ecies.Curve curve = Ecies.curve(scheme);
        if (!m.matches() && curve == null) throw new Runner.Unsupported();
        Runner.Prov prov = null;
        for (Runner.Prov p : Runner.PROVIDERS) if (p.name.equals(req.get("provider"))) prov = p;
        if (prov == null) throw new Runner.Unsupported();
        byte[] msg = Runner.hex(req, "message", true);
        int keygenReps = Stream.count(req, "keygen_reps", 1, 10_000);
        int reps = Stream.count(req, "reps", 1, 1_000_000);
        int warmup = Stream.count(req, "warmup", 0, 1_000_000);
        if (curve != null) return Ecies.serve(curve, prov, msg, keygenReps, reps, warmup);
        int bits = Integer.parseInt(m.group(1));
        boolean oaep = m.group(2).equals("oaep");
        Provider jca = prov.jca;
        String transform = oaep ? "RSA/ECB/OAEPPadding" : "RSA/ECB/PKCS1Padding";
        OAEPParameterSpec params = oaep
                ? new OAEPParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, PSource.PSpecified.DEFAULT)
                : null;
        // SunJCE has RSA's Cipher but not its key generator, which the JDK keeps in
        // SunRsaSign: the JDK's own pair for SunJCE, as an application gets by default.
        KeyPairGenerator kpg;
        try {
            kpg = KeyPairGenerator.getInstance("RSA", jca);
        } catch (java.security.NoSuchAlgorithmException e) {
            kpg = KeyPairGenerator.getInstance("RSA");
        }
        kpg.initialize(bits, new SecureRandom());

        // Verification (untimed): one pair, one encryption, the round trip in the JVM; the
        // caller decrypts the ciphertext with its own RSA under the returned private key.
        long t = System.nanoTime();
        KeyPair pair = kpg.generateKeyPair();
        byte[] ct = cipher(transform, jca, Cipher.ENCRYPT_MODE, pair, params).doFinal(msg);
        if (!Arrays.equals(cipher(transform, jca, Cipher.DECRYPT_MODE, pair, params).doFinal(ct), msg)) {
            throw new Runner.Refused("the message decrypted differs");
        }
        long firstCall = System.nanoTime() - t;

        long[] keygen = new long[keygenReps];
        for (int i = 0; i < keygenReps; i++) {
            t = System.nanoTime();
            KeyPair p = kpg.generateKeyPair();
            keygen[i] = System.nanoTime() - t;
            Runner.sink ^= p.getPublic().getEncoded().length;
        }
        long warmStart = System.nanoTime();
        for (int i = 0; i < warmup; i++) round(transform, jca, pair, params, msg, null, 0);
        long warmupNs = System.nanoTime() - warmStart;
        long[][] samples = new long[3][reps];
        for (int i = 0; i < reps; i++) round(transform, jca, pair, params, msg, samples, i);

        return answer(prov, kpg, pair.getPrivate().getEncoded(), ct, keygen, samples, firstCall, warmup, warmupNs);
    }

    /**
     * The `asym` answer, the same fields for every scheme: the provider that made the key
     * pairs, the private key (PKCS#8 DER) and the ciphertext the caller decrypts, the
     * samples (`keygen`, then `samples` as init, encrypt, decrypt), the untimed first
     * call, the warm-up, the run's facts and the provider's name and version.
     */
    static Map<String, Object> answer(Runner.Prov prov, KeyPairGenerator kpg, byte[] privateKey, byte[] ct,
            long[] keygen, long[][] samples, long firstCall, int warmup, long warmupNs) {
        Map<String, Object> samplesOut = new LinkedHashMap<>();
        samplesOut.put("keygen", keygen);
        samplesOut.put("init", samples[0]);
        samplesOut.put("encrypt", samples[1]);
        samplesOut.put("decrypt", samples[2]);
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("keygen_provider", kpg.getProvider().getName());
        res.put("private_key", HexFormat.of().formatHex(privateKey));
        res.put("ct", HexFormat.of().formatHex(ct));
        res.put("samples_ns", samplesOut);
        res.put("first_call_ns", firstCall);
        res.put("warmup_calls", (long) warmup);
        res.put("warmup_ns", warmupNs);
        res.putAll(Runner.runFacts());
        res.put("provider", prov.name);
        res.put("library_version", prov.version);
        return res;
    }

    /** init (encrypting cipher), encrypt, decrypt (its cipher made untimed); each timed alone. */
    static void round(String transform, Provider jca, KeyPair pair, OAEPParameterSpec params, byte[] msg,
            long[][] samples, int i) throws Exception {
        long t0 = System.nanoTime();
        Cipher enc = cipher(transform, jca, Cipher.ENCRYPT_MODE, pair, params);
        long t1 = System.nanoTime();
        byte[] ct = enc.doFinal(msg);
        long t2 = System.nanoTime();
        Cipher dec = cipher(transform, jca, Cipher.DECRYPT_MODE, pair, params);
        long t3 = System.nanoTime();
        byte[] back = dec.doFinal(ct);
        long t4 = System.nanoTime();
        Runner.sink ^= back.length;
        if (samples != null) {
            samples[0][i] = t1 - t0;
            samples[1][i] = t2 - t1;
            samples[2][i] = t4 - t3;
        }
    }

    static Cipher cipher(String transform, Provider jca, int mode, KeyPair pair, OAEPParameterSpec params)
            throws Exception {
        Cipher c = Cipher.getInstance(transform, jca);
        java.security.Key k = mode == Cipher.ENCRYPT_MODE ? pair.getPublic() : pair.getPrivate();
        if (params == null) c.init(mode, k);
        else c.init(mode, k, params);
        return c;
    }
}
