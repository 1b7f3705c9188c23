import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import javax.crypto.Cipher;
import javax.crypto.CipherInputStream;
import javax.crypto.CipherOutputStream;
import javax.crypto.KeyGenerator;
import javax.crypto.spec.SecretKeySpec;

/**
 * The `stream` operation (platforms/PROTOCOL.md): the Java stream-security paper's
 * experiment in the JVM. Records are written with ObjectOutputStream through a
 * CipherOutputStream and read back through CipherInputStream + ObjectInputStream; key
 * generation (KeyGenerator with the provider's SecureRandom), cipher creation and
 * initialisation, writing and reading are timed apart, each call alone.
 */
final class Stream {
    private Stream() {}

    /** A medical record, the kind of object the paper's project sent: text and small integers. */
    static final class Record implements Serializable {
        private static final long serialVersionUID = 1L; // fixed: the stream's bytes must not depend on the build

        final long id;
        final String name;
        final short born;
        final int ward;
        final String notes;
        final int[] pulse;
        final String[] allergies;
        final long[] related;

        Record(long id, SplittableRandom rng, int n) {
            this.id = id;
            this.name = String.format("patient %05d", id);
            this.born = (short) (1930 + rng.nextInt(90));
            this.ward = rng.nextInt(40);
            StringBuilder sb = new StringBuilder();
            while (sb.length() < 1200) sb.append(WORDS[rng.nextInt(WORDS.length)]).append(' ');
            this.notes = sb.toString();
            this.pulse = new int[900];
            for (int i = 0; i < pulse.length; i++) pulse[i] = 55 + rng.nextInt(70);
            this.allergies = Arrays.copyOf(new String[] {"penicillin", "latex", "nuts"}, rng.nextInt(3));
            this.related = new long[4];
            for (int i = 0; i < related.length; i++) related[i] = rng.nextInt(n);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Record r && id == r.id && born == r.born && ward == r.ward && name.equals(r.name)
                    && notes.equals(r.notes) && Arrays.equals(pulse, r.pulse) && Arrays.equals(allergies, r.allergies)
                    && Arrays.equals(related, r.related);
        }

        @Override
        public int hashCode() {
            return Objects.hash(id, name);
        }
    }

    static final String[] WORDS = {"stable", "pain", "rest", "fluids", "fever", "review", "scan", "dose", "sleep",
        "walk", "nausea", "follow-up", "discharge", "observe", "improved", "ward"};

    /** `n` records (about 5 KB each serialized) from `seed`: the same seed gives the same stream. */
    static List<Record> records(int n, long seed) {
        SplittableRandom rng = new SplittableRandom(seed);
        List<Record> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(new Record(i, rng, n));
        return out;
    }

    /** Every record through `out`, one writeObject each; closing the stream finishes the cipher. */
    static void write(List<Record> recs, java.io.OutputStream out) throws Exception {
        try (ObjectOutputStream oos = new ObjectOutputStream(out)) {
            for (Record r : recs) oos.writeObject(r);
        }
    }

    static List<Record> read(byte[] sealed, Cipher dec, int n) throws Exception {
        List<Record> back = new ArrayList<>(n);
        try (ObjectInputStream in = new ObjectInputStream(new CipherInputStream(new ByteArrayInputStream(sealed), dec))) {
            for (int i = 0; i < n; i++) back.add((Record) in.readObject());
        }
        return back;
    }

    static final String[] PHASES = {"keygen", "init", "write", "read"};

    static Map<String, Object> serve(Map<String, Object> req) throws Exception {
        Runner.Prepared p = Runner.prepare(req);
        Runner.Spec s = p.spec();
        if (s.lwc() || s.aead()) throw new Runner.Refused("stream is for the JCA's unauthenticated ciphers (CipherOutputStream)");
        int n = count(req, "objects", 1, 100_000);
        int reps = count(req, "reps", 1, 1_000_000);
        int warmup = count(req, "warmup", 0, 1_000_000);
        long seed = req.get("seed") instanceof Long l ? l : 0L;
        List<Record> recs = records(n, seed);
        String transform = Runner.transformation(s, p.pad());
        java.security.Provider jca = p.prov().jca;
        SecretKeySpec key = new SecretKeySpec(Runner.jcaKey(s, p.key()), Runner.keyAlgorithm(s));
        AlgorithmParameterSpec params = Runner.params(s, p.iv(), p.eff());
        // KeyGenerator takes the key's bits as the JCA counts them (DES 56, DESede 168).
        KeyGenerator kg;
        try {
            kg = KeyGenerator.getInstance(Runner.keyAlgorithm(s), jca);
            kg.init(s.bits(), new SecureRandom());
        } catch (Exception e) {
            throw new Runner.Unsupported();
        }

        // Verification (untimed, also timed as first_call_ns): the plain stream, the
        // ciphertext the caller checks against its own cipher, and the round trip.
        long t = System.nanoTime();
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        write(recs, plain);
        Cipher enc = cipher(transform, jca, Cipher.ENCRYPT_MODE, key, params);
        ByteArrayOutputStream sealed = new ByteArrayOutputStream();
        write(recs, new CipherOutputStream(sealed, enc));
        byte[] ct = sealed.toByteArray();
        Cipher dec = cipher(transform, jca, Cipher.DECRYPT_MODE, key, params);
        if (!read(ct, dec, n).equals(recs)) throw new Runner.Refused("the records read back differ");
        long firstCall = System.nanoTime() - t;

        long[][] samples = new long[4][reps];
        long warmStart = System.nanoTime();
        for (int i = 0; i < warmup; i++) round(kg, transform, jca, key, params, recs, ct.length, null, 0);
        long warmupNs = System.nanoTime() - warmStart;
        byte[] last = null;
        for (int i = 0; i < reps; i++) last = round(kg, transform, jca, key, params, recs, ct.length, samples, i);
        if (!Arrays.equals(last, ct)) throw new Runner.Refused("a timed write gave another ciphertext");

        int[] counts = new int[256];
        for (byte b : ct) counts[b & 0xff]++;
        Map<String, Object> samplesOut = new LinkedHashMap<>();
        Map<String, Object> drift = new LinkedHashMap<>();
        boolean steady = true;
        for (int ph = 0; ph < 4; ph++) {
            samplesOut.put(PHASES[ph], samples[ph]);
            double d = Runner.driftOf(samples[ph]);
            drift.put(PHASES[ph], d);
            steady &= Math.abs(d) <= 0.05;
        }
        long[] countsOut = new long[256];
        for (int i = 0; i < 256; i++) countsOut[i] = counts[i];
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("plain", HexFormat.of().formatHex(plain.toByteArray()));
        res.put("ct_digest", Runner.sha256(ct));
        res.put("ct_len", (long) ct.length);
        res.put("ct_counts", countsOut);
        res.put("samples_ns", samplesOut);
        res.put("first_call_ns", firstCall);
        res.put("warmup_calls", (long) warmup);
        res.put("warmup_ns", warmupNs);
        res.put("steady", steady);
        res.put("drift", drift);
        res.putAll(Runner.runFacts());
        res.put("provider", p.prov().name);
        res.put("library_version", p.prov().version);
        return res;
    }

    /**
     * One round of the four phases; with `samples`, each phase's time goes into column `i`.
     * Returns the ciphertext written.
     */
    static byte[] round(KeyGenerator kg, String transform, java.security.Provider jca, SecretKeySpec key,
            AlgorithmParameterSpec params, List<Record> recs, int ctLen, long[][] samples, int i) throws Exception {
        long t0 = System.nanoTime();
        Runner.sink ^= kg.generateKey().getEncoded().length;
        long t1 = System.nanoTime();
        Cipher enc = cipher(transform, jca, Cipher.ENCRYPT_MODE, key, params);
        long t2 = System.nanoTime();
        ByteArrayOutputStream sealed = new ByteArrayOutputStream(ctLen);
        write(recs, new CipherOutputStream(sealed, enc));
        long t3 = System.nanoTime();
        byte[] ct = sealed.toByteArray();
        Cipher dec = cipher(transform, jca, Cipher.DECRYPT_MODE, key, params); // untimed: init is timed above
        long t4 = System.nanoTime();
        List<Record> back = read(ct, dec, recs.size());
        long t5 = System.nanoTime();
        Runner.sink ^= back.size();
        if (samples != null) {
            samples[0][i] = t1 - t0;
            samples[1][i] = t2 - t1;
            samples[2][i] = t3 - t2;
            samples[3][i] = t5 - t4;
        }
        return ct;
    }

    /** Cipher.getInstance and init: what the `init` phase times. */
    static Cipher cipher(String transform, java.security.Provider jca, int mode, SecretKeySpec key,
            AlgorithmParameterSpec params) throws Exception {
        Cipher c = Cipher.getInstance(transform, jca);
        Runner.init(c, mode, key, params);
        return c;
    }

    static int count(Map<String, Object> req, String name, int min, int max) throws Runner.Refused {
        if (!(req.get(name) instanceof Long v) || v < min || v > max) {
            throw new Runner.Refused(name + " must be " + min + " to " + max);
        }
        return v.intValue();
    }
}
