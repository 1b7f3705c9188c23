import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
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
import org.bouncycastle.crypto.BlockCipher;
import org.bouncycastle.crypto.CipherParameters;
import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.io.InvalidCipherTextIOException;
import org.bouncycastle.crypto.modes.AEADBlockCipher;
import org.bouncycastle.crypto.modes.AEADCipher;
import org.bouncycastle.crypto.params.AEADParameters;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * The `stream` operation (platforms/PROTOCOL.md): the Java stream-security paper's
 * experiment in the JVM. Records are written with ObjectOutputStream through a
 * CipherOutputStream and read back through CipherInputStream + ObjectInputStream; key
 * generation, cipher creation and initialisation, writing and reading are timed apart,
 * each call alone. The JCA's ciphers go through javax.crypto's streams; BouncyCastle's
 * lightweight AEADs (Ascon), which have no JCA Cipher, through its own
 * org.bouncycastle.crypto.io streams.
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

    /**
     * `n` records read back through `opening` (a decrypting stream over the ciphertext),
     * then its end: an AEAD's tag is checked there, and a failed check throws, so no
     * record leaves this method unless the whole stream was authentic.
     */
    static List<Record> read(byte[] sealed, Opening opening, int n) throws Exception {
        List<Record> back = new ArrayList<>(n);
        InputStream plain = opening.over(new ByteArrayInputStream(sealed));
        try (ObjectInputStream in = new ObjectInputStream(plain)) {
            for (int i = 0; i < n; i++) back.add((Record) in.readObject());
            if (plain.read() != -1) throw new Runner.Refused("the stream goes on after the records");
        }
        return back;
    }

    /** An initialised encrypting cipher as a stream over the ciphertext's sink. */
    interface Sealing {
        OutputStream over(OutputStream sink);
    }

    /** An initialised decrypting cipher as a stream over the ciphertext. */
    interface Opening {
        InputStream over(InputStream sealed);
    }

    /** What the phases time for one cipher: a key made, a cipher created and initialised. */
    interface Suite {
        /** Makes one key and discards it (its length goes to the sink). */
        int keygen() throws Exception;

        Sealing sealing() throws Exception;

        Opening opening() throws Exception;
    }

    /**
     * The JCA's ciphers: KeyGenerator of the provider (initialised once with the key's
     * bits and a SecureRandom), Cipher.getInstance + init, javax.crypto's streams.
     */
    static Suite jca(Runner.Prepared p) throws Exception {
        Runner.Spec s = p.spec();
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
        return new Suite() {
            public int keygen() {
                return kg.generateKey().getEncoded().length;
            }

            public Sealing sealing() throws Exception {
                Cipher c = cipher(transform, jca, Cipher.ENCRYPT_MODE, key, params);
                return sink -> new CipherOutputStream(sink, c);
            }

            public Opening opening() throws Exception {
                Cipher c = cipher(transform, jca, Cipher.DECRYPT_MODE, key, params);
                return sealed -> new CipherInputStream(sealed, c);
            }
        };
    }

    /**
     * BouncyCastle's lightweight AEADs (Ascon-AEAD128): no JCA KeyGenerator, so a key is
     * key-length bytes from a SecureRandom (made once); init creates the engine and
     * initialises it with the key, the nonce, a 128-bit tag and empty associated data;
     * the streams are org.bouncycastle.crypto.io's, which append the tag on close and
     * check it at the end of the ciphertext.
     */
    static Suite lightweight(Runner.Prepared p) {
        Runner.Spec s = p.spec();
        SecureRandom random = new SecureRandom();
        byte[] key = p.key();
        byte[] nonce = p.iv();
        return new Suite() {
            public int keygen() {
                byte[] k = new byte[s.keyLen()];
                random.nextBytes(k);
                return k.length;
            }

            public Sealing sealing() {
                AEADCipher c = aead(true);
                return sink -> new org.bouncycastle.crypto.io.CipherOutputStream(sink, new AsBlockAead(c));
            }

            public Opening opening() {
                AEADCipher c = aead(false);
                return sealed -> new org.bouncycastle.crypto.io.CipherInputStream(sealed, new AsBlockAead(c));
            }

            AEADCipher aead(boolean encrypt) {
                AEADCipher c = Runner.lwcEngine(s.family());
                c.init(encrypt, new AEADParameters(new KeyParameter(key), 128, nonce));
                return c;
            }
        };
    }

    /**
     * BouncyCastle's io streams take an AEADBlockCipher, its lightweight engines are only
     * AEADCiphers; the streams call nothing beyond AEADCipher's methods (checked on
     * bcprov 1.87's bytecode), so this forwards those and has no underlying block cipher.
     * Written by hand: BouncyCastle has no such adapter.
     */
    static final class AsBlockAead implements AEADBlockCipher {
        private final AEADCipher c;

        AsBlockAead(AEADCipher c) {
            this.c = c;
        }

        public BlockCipher getUnderlyingCipher() {
            throw new UnsupportedOperationException("a lightweight AEAD has no underlying block cipher");
        }

        public void init(boolean encrypt, CipherParameters params) {
            c.init(encrypt, params);
        }

        public String getAlgorithmName() {
            return c.getAlgorithmName();
        }

        public void processAADByte(byte in) {
            c.processAADByte(in);
        }

        public void processAADBytes(byte[] in, int off, int len) {
            c.processAADBytes(in, off, len);
        }

        public int processByte(byte in, byte[] out, int off) {
            return c.processByte(in, out, off);
        }

        public int processBytes(byte[] in, int off, int len, byte[] out, int outOff) {
            return c.processBytes(in, off, len, out, outOff);
        }

        public int doFinal(byte[] out, int off) throws InvalidCipherTextException {
            return c.doFinal(out, off);
        }

        public byte[] getMac() {
            return c.getMac();
        }

        public int getUpdateOutputSize(int len) {
            return c.getUpdateOutputSize(len);
        }

        public int getOutputSize(int len) {
            return c.getOutputSize(len);
        }

        public void reset() {
            c.reset();
        }
    }

    static final String[] PHASES = {"keygen", "init", "write", "read"};

    static Map<String, Object> serve(Map<String, Object> req) throws Exception {
        Runner.Prepared p = Runner.prepare(req);
        Runner.Spec s = p.spec();
        if (s.aead() && !s.lwc()) {
            throw new Runner.Refused("stream is for the JCA's unauthenticated ciphers and BouncyCastle's lightweight AEADs");
        }
        if (s.lwc() && !p.prov().lightweight) throw new Runner.Unsupported();
        int n = count(req, "objects", 1, 100_000);
        int reps = count(req, "reps", 1, 1_000_000);
        int warmup = count(req, "warmup", 0, 1_000_000);
        long seed = req.get("seed") instanceof Long l ? l : 0L;
        List<Record> recs = records(n, seed);
        Suite suite = s.lwc() ? lightweight(p) : jca(p);

        // Verification (untimed, also timed as first_call_ns): the plain stream, the
        // ciphertext the caller checks against its own cipher, and the round trip.
        long t = System.nanoTime();
        ByteArrayOutputStream plain = new ByteArrayOutputStream();
        write(recs, plain);
        ByteArrayOutputStream sealed = new ByteArrayOutputStream();
        write(recs, suite.sealing().over(sealed));
        byte[] ct = sealed.toByteArray();
        if (!read(ct, suite.opening(), n).equals(recs)) throw new Runner.Refused("the records read back differ");
        long firstCall = System.nanoTime() - t;
        if (s.aead()) refusesTampering(ct, suite, n);

        long[][] samples = new long[4][reps];
        long warmStart = System.nanoTime();
        for (int i = 0; i < warmup; i++) round(suite, recs, ct.length, null, 0);
        long warmupNs = System.nanoTime() - warmStart;
        byte[] last = null;
        for (int i = 0; i < reps; i++) last = round(suite, recs, ct.length, samples, i);
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
        if (s.aead()) res.put("tamper_refused", true);
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
    static byte[] round(Suite suite, List<Record> recs, int ctLen, long[][] samples, int i) throws Exception {
        long t0 = System.nanoTime();
        Runner.sink ^= suite.keygen();
        long t1 = System.nanoTime();
        Sealing enc = suite.sealing();
        long t2 = System.nanoTime();
        ByteArrayOutputStream sealed = new ByteArrayOutputStream(ctLen);
        write(recs, enc.over(sealed));
        long t3 = System.nanoTime();
        byte[] ct = sealed.toByteArray();
        Opening dec = suite.opening(); // untimed: init is timed above
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

    /**
     * An AEAD's stream with one bit of its tag flipped must not be read back: every record
     * still deserializes, so only the tag check at the end stands between them and the
     * caller. Anything else than an authentication failure is an error too.
     */
    static void refusesTampering(byte[] ct, Suite suite, int n) throws Exception {
        byte[] bad = ct.clone();
        bad[bad.length - 1] ^= 1;
        try {
            read(bad, suite.opening(), n);
        } catch (InvalidCipherTextIOException e) {
            return;
        }
        throw new Runner.Refused("a stream with a tampered tag was read back");
    }

    /** Cipher.getInstance and init: what the JCA's `init` phase times. */
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
