import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.Provider;
import java.security.Security;
import java.security.spec.AlgorithmParameterSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.RC2ParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.modes.AEADCipher;
import org.bouncycastle.crypto.engines.AsconAEAD128;
import org.bouncycastle.crypto.engines.AsconEngine;
import org.bouncycastle.crypto.engines.ISAPEngine;
import org.bouncycastle.crypto.engines.XoodyakEngine;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;
import org.bouncycastle.jce.provider.BouncyCastleProvider;

/**
 * cipherlab's Java runner: the JDK's SunJCE and BouncyCastle (its JCA provider, and its
 * lightweight API for Ascon, Xoodyak and ISAP, which it offers only there) behind the
 * protocol of platforms/PROTOCOL.md (JSON lines on stdin and stdout: the vector operations
 * of `cipherlab vectors`, `info` and `time`; `stream` and `asym` ({@link Stream},
 * {@link Asym}); `pdf`, Apache PDFBox timed by JMH ({@link Pdf})).
 */
public final class Runner {
    private static final long STARTED = System.nanoTime(); // start-up is measured from here

    static final class Unsupported extends Exception {}

    static final class AuthFailed extends Exception {}

    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    // -------------------------------------------------------------- catalogue names

    static final List<String> BLOCK_MODES = List.of("ecb", "cbc", "cfb", "cfb8", "cfb1", "ofb", "ctr");
    /**
     * The probe set of the last {@code info} request (PROTOCOL.md, "info"): per algorithm with
     * many key sizes, the sizes to list it at ("bits") and the sizes its names may have
     * ("range"). Until an {@code info} brings one, such names are unsupported.
     */
    static Map<String, List<Long>> probeBits = Map.of();
    static Map<String, List<Long>> keyRange = Map.of();
    static final Map<String, Integer> LWC_KEY = Map.of(
            "ascon-aead128", 16, "ascon-128", 16, "ascon-128a", 16, "ascon-80pq", 20, "xoodyak", 16,
            "isap-a-128a", 16, "isap-a-128", 16, "isap-k-128a", 16, "isap-k-128", 16);

    /** A parsed catalogue name: family, key bits, mode and the sizes that follow. */
    record Spec(String name, String family, int bits, String mode) {
        int block() {
            return family.equals("aes") ? 16 : 8;
        }

        boolean lwc() {
            return LWC_KEY.containsKey(family);
        }

        boolean aead() {
            return "gcm".equals(mode) || family.equals("chacha20-poly1305") || lwc();
        }

        boolean pads() {
            return "ecb".equals(mode) || "cbc".equals(mode);
        }

        int keyLen() {
            return switch (family) {
                case "des" -> 8;
                case "3des" -> bits / 7;
                default -> lwc() ? LWC_KEY.get(family) : bits / 8;
            };
        }

        int ivLen() {
            if (lwc()) return 16;
            if (aead()) return 12;
            return mode == null || mode.equals("ecb") ? 0 : block();
        }
    }

    static final String MODES = String.join("|", BLOCK_MODES);
    static final Pattern AES = Pattern.compile("aes-(128|192|256)-(" + MODES + "|gcm)");
    static final Pattern FIXED = Pattern.compile("(des|skipjack)-(" + MODES + ")");
    static final Pattern TDES = Pattern.compile("3des-(112|168)-(" + MODES + ")");
    static final Pattern VAR = Pattern.compile("(blowfish|rc2)-([1-9][0-9]*)-(" + MODES + ")");
    static final Pattern RC4 = Pattern.compile("(rc4)-([1-9][0-9]*)()");

    static Spec parse(String name) throws Unsupported {
        if (LWC_KEY.containsKey(name)) return new Spec(name, name, LWC_KEY.get(name) * 8, null);
        if (name.equals("chacha20-poly1305")) return new Spec(name, name, 256, null);
        Matcher m;
        if ((m = AES.matcher(name)).matches()) return new Spec(name, "aes", Integer.parseInt(m.group(1)), m.group(2));
        if ((m = FIXED.matcher(name)).matches()) return new Spec(name, m.group(1), m.group(1).equals("des") ? 56 : 80, m.group(2));
        if ((m = TDES.matcher(name)).matches()) return new Spec(name, "3des", Integer.parseInt(m.group(1)), m.group(2));
        if ((m = VAR.matcher(name)).matches() || (m = RC4.matcher(name)).matches()) {
            List<Long> range = keyRange.getOrDefault(m.group(1), List.of(1L, 0L));
            int bits;
            try {
                bits = Integer.parseInt(m.group(2));
            } catch (NumberFormatException e) {
                throw new Unsupported();
            }
            if (bits >= range.get(0) && bits <= range.get(1) && bits % 8 == 0) {
                return new Spec(name, m.group(1), bits, m.group(3).isEmpty() ? null : m.group(3));
            }
        }
        throw new Unsupported();
    }

    static List<String> candidateNames() {
        List<String> out = new ArrayList<>();
        for (int b : new int[] {128, 192, 256}) {
            for (String m : BLOCK_MODES) out.add("aes-" + b + "-" + m);
            out.add("aes-" + b + "-gcm");
        }
        for (String m : BLOCK_MODES) out.add("des-" + m);
        for (int b : new int[] {112, 168}) for (String m : BLOCK_MODES) out.add("3des-" + b + "-" + m);
        for (String fam : List.of("blowfish", "rc2")) {
            for (long b : probeBits.getOrDefault(fam, List.of())) for (String m : BLOCK_MODES) out.add(fam + "-" + b + "-" + m);
        }
        for (String m : BLOCK_MODES) out.add("skipjack-" + m);
        for (long b : probeBits.getOrDefault("rc4", List.of())) out.add("rc4-" + b);
        out.add("chacha20-poly1305");
        out.addAll(new TreeSet<>(LWC_KEY.keySet()));
        return out;
    }

    // -------------------------------------------------------------- providers

    /**
     * One message's work, built for one spec, key, IV and AD: what an application does per
     * message (create and initialise the cipher, process, finish). Encryption returns the
     * ciphertext followed by the tag; decryption takes the same.
     */
    interface Call {
        byte[] run(byte[] data) throws Exception;
    }

    /** A provider: JCA (SunJCE, BC) or BouncyCastle's lightweight AEAD engines. */
    static final class Prov {
        final String name;
        final String library;
        final String version;
        final Provider jca;
        final boolean lightweight;
        /** The algorithms served, per probe set (its text). */
        final Map<String, List<String>> listed = new HashMap<>();

        /** The algorithms it serves at the current probe set (probed on first use). */
        List<String> algorithms() {
            String key = probeBits + " " + keyRange;
            List<String> have = listed.get(key);
            if (have != null) return have;
            long t0 = System.nanoTime();
            have = new ArrayList<>();
            for (String n : candidateNames()) if (probe(this, n)) have.add(n);
            if (listed.isEmpty()) probingNs += System.nanoTime() - t0; // the first probing counts into the start-up
            listed.put(key, have);
            return have;
        }

        Prov(String name, String library, Provider jca, boolean lightweight) {
            this.name = name;
            this.library = library;
            this.version = jca.getVersionStr();
            this.jca = jca;
            this.lightweight = lightweight;
        }

        /** A per-message call; with `reuse` the Cipher (and its key schedule) is made once. */
        Call build(Spec s, byte[] key, byte[] iv, byte[] ad, boolean pad, int eff, boolean encrypt, boolean reuse)
                throws Exception {
            if (s.lwc()) {
                if (!lightweight) throw new Unsupported();
                return lwcCall(s, key, iv, ad, encrypt, reuse);
            }
            String transform = transformation(s, pad);
            int opmode = encrypt ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE;
            SecretKeySpec k = new SecretKeySpec(jcaKey(s, key), keyAlgorithm(s));
            AlgorithmParameterSpec params = params(s, iv, eff);
            Cipher probe;
            try {
                probe = Cipher.getInstance(transform, jca);
                init(probe, opmode, k, params);
            } catch (Exception e) {
                throw new Unsupported();
            }
            boolean aead = s.aead();
            if (reuse) {
                Cipher c = probe;
                return data -> {
                    init(c, opmode, k, params);
                    if (aead) c.updateAAD(ad);
                    return finish(c, data);
                };
            }
            return data -> {
                Cipher c = Cipher.getInstance(transform, jca);
                init(c, opmode, k, params);
                if (aead) c.updateAAD(ad);
                return finish(c, data);
            };
        }

        /**
         * A per-message call over `chunk`-byte pieces of the input (PROTOCOL.md, `time`,
         * `chunk`): the output goes piece by piece into one reused buffer, never whole, so a
         * file of hundreds of MB is held once. Its result is the output's SHA-256 while
         * {@link #digesting} (the untimed calls), else nothing; {@link #streamedLen} is the
         * output's length.
         */
        Call chunked(Spec s, byte[] key, byte[] iv, byte[] ad, boolean pad, int eff, boolean encrypt, boolean reuse,
                int chunk) throws Exception {
            build(s, key, iv, ad, pad, eff, encrypt, false); // refuses what this provider lacks
            byte[][] buf = {new byte[chunk + 64]};
            if (s.lwc()) {
                ParametersWithIV params = new ParametersWithIV(new KeyParameter(key), iv);
                AEADCipher kept = reuse ? lwcEngine(s.family) : null;
                return data -> {
                    AEADCipher c = kept != null ? kept : lwcEngine(s.family);
                    c.init(encrypt, params);
                    c.processAADBytes(ad, 0, ad.length);
                    MessageDigest md = digesting ? MessageDigest.getInstance("SHA-256") : null;
                    long total = 0;
                    for (int off = 0; off < data.length; off += chunk) {
                        int len = Math.min(chunk, data.length - off);
                        buf[0] = room(buf[0], c.getUpdateOutputSize(len));
                        int n = c.processBytes(data, off, len, buf[0], 0);
                        total += emit(md, buf[0], n);
                    }
                    buf[0] = room(buf[0], c.getOutputSize(0));
                    try {
                        total += emit(md, buf[0], c.doFinal(buf[0], 0));
                    } catch (InvalidCipherTextException e) {
                        throw new AuthFailed();
                    }
                    return done(md, total);
                };
            }
            String transform = transformation(s, pad);
            int opmode = encrypt ? Cipher.ENCRYPT_MODE : Cipher.DECRYPT_MODE;
            SecretKeySpec k = new SecretKeySpec(jcaKey(s, key), keyAlgorithm(s));
            AlgorithmParameterSpec params = params(s, iv, eff);
            Cipher kept = reuse ? Cipher.getInstance(transform, jca) : null;
            boolean aead = s.aead();
            return data -> {
                Cipher c = kept != null ? kept : Cipher.getInstance(transform, jca);
                init(c, opmode, k, params);
                if (aead) c.updateAAD(ad);
                MessageDigest md = digesting ? MessageDigest.getInstance("SHA-256") : null;
                long total = 0;
                for (int off = 0; off < data.length; off += chunk) {
                    int len = Math.min(chunk, data.length - off);
                    buf[0] = room(buf[0], c.getOutputSize(len));
                    total += emit(md, buf[0], c.update(data, off, len, buf[0], 0));
                }
                buf[0] = room(buf[0], c.getOutputSize(0));
                try {
                    total += emit(md, buf[0], c.doFinal(buf[0], 0));
                } catch (AEADBadTagException e) {
                    throw new AuthFailed();
                }
                return done(md, total);
            };
        }
    }

    /** Whether chunked calls hash their output (only the untimed ones do). */
    static boolean digesting;
    /** The output length of the last chunked call. */
    static long streamedLen;

    static byte[] room(byte[] buf, int need) {
        return buf.length >= need ? buf : new byte[need];
    }

    static int emit(MessageDigest md, byte[] out, int n) {
        if (md != null) md.update(out, 0, n);
        else if (n > 0) sink ^= out[n - 1];
        return n;
    }

    static byte[] done(MessageDigest md, long total) {
        streamedLen = total;
        return md != null ? md.digest() : EMPTY;
    }

    static void init(Cipher c, int opmode, SecretKeySpec k, AlgorithmParameterSpec params) throws Exception {
        if (params == null) c.init(opmode, k);
        else c.init(opmode, k, params);
    }

    static byte[] finish(Cipher c, byte[] data) throws Exception {
        try {
            return c.doFinal(data);
        } catch (AEADBadTagException e) {
            throw new AuthFailed();
        }
    }

    static String transformation(Spec s, boolean pad) {
        String alg = switch (s.family) {
            case "aes" -> "AES";
            case "des" -> "DES";
            case "3des" -> "DESede";
            case "blowfish" -> "Blowfish";
            case "rc2" -> "RC2";
            case "skipjack" -> "SKIPJACK";
            case "rc4" -> "ARCFOUR";
            default -> "ChaCha20-Poly1305";
        };
        if (s.mode == null) return alg;
        // JCA's "CFB" and "OFB" without a number are full-block, as the catalogue's.
        String mode = s.mode.toUpperCase();
        return alg + "/" + mode + "/" + (s.pads() && pad ? "PKCS5Padding" : "NoPadding");
    }

    static String keyAlgorithm(Spec s) {
        return switch (s.family) {
            case "aes" -> "AES";
            case "des" -> "DES";
            case "3des" -> "DESede";
            case "blowfish" -> "Blowfish";
            case "rc2" -> "RC2";
            case "skipjack" -> "SKIPJACK";
            case "rc4" -> "ARCFOUR";
            default -> "ChaCha20";
        };
    }

    /** SunJCE's DESede takes three keys only: two-key 3DES is K1 K2 K1 (the same cipher). */
    static byte[] jcaKey(Spec s, byte[] key) {
        if (s.family.equals("3des") && key.length == 16) {
            byte[] k = Arrays.copyOf(key, 24);
            System.arraycopy(key, 0, k, 16, 8);
            return k;
        }
        return key;
    }

    static AlgorithmParameterSpec params(Spec s, byte[] iv, int eff) {
        if (s.family.equals("rc2")) return iv.length == 0 ? new RC2ParameterSpec(eff) : new RC2ParameterSpec(eff, iv);
        if ("gcm".equals(s.mode)) return new GCMParameterSpec(128, iv);
        return iv.length == 0 ? null : new IvParameterSpec(iv);
    }

    /** BouncyCastle's lightweight AEAD engine for a catalogue name. */
    static AEADCipher lwcEngine(String family) {
        return switch (family) {
            case "ascon-aead128" -> new AsconAEAD128();
            case "ascon-128" -> new AsconEngine(AsconEngine.AsconParameters.ascon128);
            case "ascon-128a" -> new AsconEngine(AsconEngine.AsconParameters.ascon128a);
            case "ascon-80pq" -> new AsconEngine(AsconEngine.AsconParameters.ascon80pq);
            case "xoodyak" -> new XoodyakEngine();
            case "isap-a-128a" -> new ISAPEngine(ISAPEngine.IsapType.ISAP_A_128A);
            case "isap-a-128" -> new ISAPEngine(ISAPEngine.IsapType.ISAP_A_128);
            case "isap-k-128a" -> new ISAPEngine(ISAPEngine.IsapType.ISAP_K_128A);
            default -> new ISAPEngine(ISAPEngine.IsapType.ISAP_K_128);
        };
    }

    static Call lwcCall(Spec s, byte[] key, byte[] iv, byte[] ad, boolean encrypt, boolean reuse) {
        ParametersWithIV params = new ParametersWithIV(new KeyParameter(key), iv);
        AEADCipher kept = reuse ? lwcEngine(s.family) : null;
        return data -> {
            AEADCipher c = kept != null ? kept : lwcEngine(s.family);
            c.init(encrypt, params);
            c.processAADBytes(ad, 0, ad.length);
            byte[] out = new byte[c.getOutputSize(data.length)];
            int n = c.processBytes(data, 0, data.length, out, 0);
            try {
                n += c.doFinal(out, n);
            } catch (InvalidCipherTextException e) {
                throw new AuthFailed();
            }
            return n == out.length ? out : Arrays.copyOf(out, n);
        };
    }

    static boolean probe(Prov p, String name) {
        try {
            Spec s = parse(name);
            byte[] key = new byte[s.keyLen()];
            for (int i = 0; i < key.length; i++) key[i] = (byte) (i % 251 + 1);
            byte[] iv = new byte[s.ivLen()];
            byte[] msg = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
            int eff = Math.min(s.bits, 1024);
            byte[] ct = p.build(s, key, iv, new byte[0], s.pads(), eff, true, false).run(msg);
            return Arrays.equals(p.build(s, key, iv, new byte[0], s.pads(), eff, false, false).run(ct), msg);
        } catch (Exception e) {
            return false;
        }
    }

    static final List<Prov> PROVIDERS = new ArrayList<>();
    static long ready;
    static long probingNs;

    // -------------------------------------------------------------- requests

    static final Set<String> CIPHER_FIELDS = Set.of("id", "alg", "op", "key", "iv", "nonce", "ad", "padding",
            "effective_bits", "provider");
    static final Map<String, Set<String>> ALLOWED = Map.of(
            "encrypt", union(CIPHER_FIELDS, "pt"),
            "decrypt", union(CIPHER_FIELDS, "ct", "tag"),
            "time", union(CIPHER_FIELDS, "direction", "input", "reps", "warmup", "reuse", "expect", "chunk"),
            "stream", union(CIPHER_FIELDS, "objects", "seed", "reps", "warmup"),
            "asym", Set.of("id", "op", "scheme", "provider", "message", "keygen_reps", "reps", "warmup"),
            "pdf", Set.of("id", "op", "input", "password", "scheme", "user_password", "owner_password", "direction",
                    "mode", "warmup_iterations", "iterations", "forks", "iteration_ms", "output", "trace", "profile_ms"),
            "info", Set.of("id", "op", "probe"));

    static Set<String> union(Set<String> a, String... more) {
        Set<String> out = new TreeSet<>(a);
        out.addAll(List.of(more));
        return out;
    }

    static byte[] hex(Map<String, Object> req, String name, boolean required) throws Refused {
        if (!req.containsKey(name)) {
            if (required) throw new Refused("missing field \"" + name + "\"");
            return new byte[0];
        }
        try {
            return HexFormat.of().parseHex((String) req.get(name));
        } catch (RuntimeException e) {
            throw new Refused("field \"" + name + "\" is not hex");
        }
    }

    record Prepared(Prov prov, Spec spec, byte[] key, byte[] iv, byte[] ad, boolean pad, int eff) {}

    static Prepared prepare(Map<String, Object> req) throws Exception {
        Spec s = parse(String.valueOf(req.get("alg")));
        Object wanted = req.get("provider");
        Prov prov = null;
        for (Prov p : PROVIDERS) {
            boolean named = wanted == null || p.name.equals(wanted);
            if (named && (prov == null || wanted == null && !prov.algorithms().contains(s.name) && p.algorithms().contains(s.name))) {
                prov = p;
            }
        }
        if (prov == null) throw new Unsupported();
        byte[] key = hex(req, "key", true);
        if (req.containsKey("iv") && req.containsKey("nonce")) throw new Refused("give \"iv\" or \"nonce\", not both");
        byte[] iv = hex(req, req.containsKey("iv") ? "iv" : "nonce", false);
        byte[] ad = hex(req, "ad", false);
        if (key.length != s.keyLen()) throw new Refused("key must be " + s.keyLen() + " bytes, got " + key.length);
        if (iv.length != s.ivLen()) throw new Refused("iv/nonce must be " + s.ivLen() + " bytes, got " + iv.length);
        if (ad.length > 0 && !s.aead()) throw new Refused(s.name + " takes no associated data");
        Object padding = req.getOrDefault("padding", "pkcs7");
        if (!List.of("pkcs7", "pkcs5", "none").contains(padding)) throw new Refused("padding \"" + padding + "\" is not pkcs7 or none");
        boolean pad = s.pads() && !padding.equals("none");
        int eff = req.containsKey("effective_bits") ? ((Number) req.get("effective_bits")).intValue() : Math.min(s.bits, 1024);
        if (eff != Math.min(s.bits, 1024) && !s.family.equals("rc2")) throw new Refused("effective_bits is for rc2 only");
        return new Prepared(prov, s, key, iv, ad, pad, eff);
    }

    static void checkLength(Spec s, boolean pad, int n) throws Refused {
        if (s.pads() && !pad && n % s.block() != 0) {
            throw new Refused("without padding the input must be whole " + s.block() + "-byte blocks");
        }
    }

    static Map<String, Object> serveVector(Map<String, Object> req, boolean encrypt) throws Exception {
        Prepared p = prepare(req);
        Spec s = p.spec;
        Map<String, Object> out = new LinkedHashMap<>();
        HexFormat hf = HexFormat.of();
        if (encrypt) {
            byte[] pt = hex(req, "pt", true);
            checkLength(s, p.pad, pt.length);
            byte[] ct = p.prov.build(s, p.key, p.iv, p.ad, p.pad, p.eff, true, false).run(pt);
            if (s.aead()) {
                out.put("ct", hf.formatHex(ct, 0, ct.length - 16));
                out.put("tag", hf.formatHex(ct, ct.length - 16, ct.length));
            } else {
                out.put("ct", hf.formatHex(ct));
            }
            return out;
        }
        byte[] ct = hex(req, "ct", true);
        if (s.aead()) {
            byte[] tag = hex(req, "tag", true);
            if (tag.length != 16) throw new Refused("tag must be 16 bytes, got " + tag.length);
            byte[] both = Arrays.copyOf(ct, ct.length + 16);
            System.arraycopy(tag, 0, both, ct.length, 16);
            ct = both;
        } else if (req.containsKey("tag")) {
            throw new Refused(s.name + " has no tag");
        }
        checkLength(s, p.pad, ct.length);
        out.put("pt", hf.formatHex(p.prov.build(s, p.key, p.iv, p.ad, p.pad, p.eff, false, false).run(ct)));
        return out;
    }

    static double median(long[] xs) {
        long[] s = xs.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    }

    /** Median of the last quarter over the quarter before it, minus one. */
    static double driftOf(long[] samples) {
        int n = samples.length;
        if (n < 8) return 0;
        int q = n / 4;
        return median(Arrays.copyOfRange(samples, n - q, n)) / Math.max(median(Arrays.copyOfRange(samples, n - 2 * q, n - q)), 1) - 1;
    }

    static volatile int sink; // every timed output feeds it, so the JIT cannot drop a call

    static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    /** The cipher the last `init` call made (PROTOCOL.md, `time`, direction `init`). */
    static Call last;
    static final byte[] EMPTY = new byte[0];

    static Map<String, Object> serveTime(Map<String, Object> req) throws Exception {
        Prepared p = prepare(req);
        Spec s = p.spec;
        Object direction = req.get("direction");
        if (!"encrypt".equals(direction) && !"decrypt".equals(direction) && !"init".equals(direction)) {
            throw new Refused("direction must be \"encrypt\", \"decrypt\" or \"init\"");
        }
        // `init` times the key schedule alone: each timed call makes and keys a new cipher
        // (Cipher.getInstance + init, or a new lightweight engine and its init). The first
        // and the last of them encrypt the input, untimed, to prove they work.
        boolean keying = direction.equals("init");
        boolean encrypt = !direction.equals("decrypt");
        if (!(req.get("reps") instanceof Long repsL) || repsL < 1 || repsL > 1_000_000) throw new Refused("reps must be 1 to 1000000");
        int reps = repsL.intValue();
        Object warmup = req.getOrDefault("warmup", 0L);
        if (!"steady".equals(warmup) && !(warmup instanceof Long w && w >= 0)) throw new Refused("warmup must be a count or \"steady\"");
        boolean reuse = Boolean.TRUE.equals(req.get("reuse"));
        Object chunkField = req.get("chunk");
        if (chunkField != null && !(chunkField instanceof Long c && c >= 16 && c <= (1L << 30))) {
            throw new Refused("chunk must be 16 to 1073741824 bytes");
        }
        int chunk = chunkField == null ? 0 : ((Long) chunkField).intValue();
        if (chunk > 0 && keying) throw new Refused("chunk is for encrypt and decrypt, not init");
        byte[] plain = Files.readAllBytes(Path.of(String.valueOf(req.get("input"))));
        checkLength(s, p.pad, plain.length);
        byte[] data = plain;
        String expect = req.containsKey("expect") ? String.valueOf(req.get("expect")).toLowerCase() : null;
        if (!encrypt) {
            expect = sha256(plain);
            data = p.prov.build(s, p.key, p.iv, p.ad, p.pad, p.eff, true, false).run(plain);
            plain = null; // held once: only the ciphertext stays
        }
        Call call = keying
                ? input -> {
                    last = p.prov.build(s, p.key, p.iv, p.ad, p.pad, p.eff, true, true);
                    return EMPTY;
                }
                : chunk > 0
                ? p.prov.chunked(s, p.key, p.iv, p.ad, p.pad, p.eff, encrypt, reuse, chunk)
                : p.prov.build(s, p.key, p.iv, p.ad, p.pad, p.eff, encrypt, reuse);

        long t = System.nanoTime();
        byte[] out;
        digesting = chunk > 0;
        try {
            out = call.run(data);
        } catch (IllegalStateException | java.security.InvalidKeyException | java.security.InvalidAlgorithmParameterException e) {
            throw new Refused(reuse ? "reuse unsupported: " + e.getMessage() : e.getMessage());
        }
        long firstCall = System.nanoTime() - t;
        digesting = false;
        if (keying) out = last.run(data);
        String got = chunk > 0 ? HexFormat.of().formatHex(out) : sha256(out);
        if (expect != null && !got.equals(expect)) throw new Refused("digest mismatch: got " + got + ", expected " + expect + "; nothing timed");
        if (reuse) call.run(data); // a provider that refuses a second init with the same IV says so here

        long warmStart = System.nanoTime();
        long warmCalls = 0;
        boolean steadyWarmup = true;
        if ("steady".equals(warmup)) {
            // Batches of 1,000 calls until three batches in a row are each within 2% of the
            // one before, and at least 10,000 calls: the JIT's tiers plateau on the way
            // (seen here: three C1-compiled batches of AES-GCM 16 KiB agreed at 396 us a
            // call, 30 times the 13 us the C2-compiled code takes).
            int batch = 1000;
            double previous = -1;
            int agreeing = 0;
            long[] times = new long[batch];
            while (true) {
                for (int i = 0; i < batch; i++) {
                    t = System.nanoTime();
                    sink ^= call.run(data).length;
                    times[i] = System.nanoTime() - t;
                }
                warmCalls += batch;
                double m = median(times);
                agreeing = previous > 0 && Math.abs(m / previous - 1) <= 0.02 ? agreeing + 1 : 0;
                if (agreeing >= 3 && warmCalls >= 10L * batch) break;
                if (System.nanoTime() - warmStart > 30_000_000_000L) {
                    steadyWarmup = false;
                    break;
                }
                previous = m;
            }
        } else {
            long n = (Long) warmup;
            for (long i = 0; i < n; i++) sink ^= call.run(data).length;
            warmCalls = n;
        }
        long warmupNs = System.nanoTime() - warmStart;

        long[] samples = new long[reps];
        for (int i = 0; i < reps; i++) {
            out = null; // the previous output is released before the clock starts
            t = System.nanoTime();
            out = call.run(data);
            samples[i] = System.nanoTime() - t;
            sink ^= out.length;
        }
        if (keying) out = last.run(data);
        // The last timed output must be the verified one: a context that breaks after its
        // first use is not timed (PROTOCOL.md, `time`). Chunked calls keep no output: one
        // more call, untimed, hashes its output as it streams.
        if (chunk > 0) {
            digesting = true;
            out = call.run(data);
            digesting = false;
        }
        String lastDigest = chunk > 0 ? HexFormat.of().formatHex(out) : sha256(out);
        if (!lastDigest.equals(got)) throw new Refused("digest mismatch after timing: the last timed output's SHA-256 is " + lastDigest + ", expected " + got + "; figure refused");
        double drift = driftOf(samples);
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("samples_ns", samples);
        res.put("digest", lastDigest);
        res.put("out_len", chunk > 0 ? streamedLen : (long) out.length);
        res.put("first_call_ns", firstCall);
        res.put("warmup_calls", warmCalls);
        res.put("warmup_ns", warmupNs);
        res.put("steady_warmup", steadyWarmup);
        res.put("steady", Math.abs(drift) <= 0.05);
        res.put("drift", drift);
        res.putAll(runFacts());
        res.put("provider", p.prov.name);
        res.put("library_version", p.prov.version);
        return res;
    }

    static Map<String, Object> runFacts() {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("startup_ns", ready - STARTED + probingNs);
        f.put("clock", "System.nanoTime");
        f.put("runtime", "java");
        f.put("runtime_version", System.getProperty("java.version"));
        return f;
    }

    /** Takes the probe set of an {@code info} request (absent: the one before stays). */
    @SuppressWarnings("unchecked")
    static void setProbe(Object p) throws Refused {
        if (p == null) return;
        if (!(p instanceof Map)) throw new Refused("\"probe\" must be an object");
        Map<String, List<Long>> bits = new TreeMap<>();
        Map<String, List<Long>> range = new TreeMap<>();
        for (Map.Entry<String, Object> e : ((Map<String, Object>) p).entrySet()) {
            String bad = "\"probe\".\"" + e.getKey() + "\" must be {\"bits\": [...], \"range\": [lo, hi]}";
            if (!(e.getValue() instanceof Map<?, ?> v)) throw new Refused(bad);
            List<Long> b = longs(v.get("bits")), r = longs(v.get("range"));
            if (b == null || r == null || r.size() != 2) throw new Refused(bad);
            bits.put(e.getKey(), b);
            range.put(e.getKey(), r);
        }
        probeBits = bits;
        keyRange = range;
    }

    /** The list of positive whole numbers {@code o} is, or null. */
    static List<Long> longs(Object o) {
        if (!(o instanceof List<?> l)) return null;
        List<Long> out = new ArrayList<>();
        for (Object x : l) {
            if (!(x instanceof Long n) || n <= 0) return null;
            out.add(n);
        }
        return out;
    }

    static Map<String, Object> info(Map<String, Object> req) throws Refused {
        setProbe(req.get("probe"));
        for (Prov p : PROVIDERS) p.algorithms();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("runtime", "java");
        out.put("version", System.getProperty("java.version"));
        out.put("startup_ns", ready - STARTED + probingNs);
        out.put("clock", "System.nanoTime");
        List<Object> provs = new ArrayList<>();
        for (Prov p : PROVIDERS) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", p.name);
            m.put("library", p.library);
            m.put("version", p.version);
            m.put("algorithms", p.algorithms());
            provs.add(m);
        }
        out.put("providers", provs);
        return out;
    }

    static Map<String, Object> answer(Map<String, Object> req) throws Exception {
        Object op = req.get("op");
        if ("hash".equals(op)) throw new Unsupported();
        Set<String> allowed = ALLOWED.get(String.valueOf(op));
        if (allowed == null) throw new Refused("op \"" + op + "\" is not one of encrypt, decrypt, time, stream, asym, pdf, info");
        Set<String> unknown = new TreeSet<>(req.keySet());
        unknown.removeAll(allowed);
        if (!unknown.isEmpty()) throw new Refused("field(s) " + String.join(", ", unknown) + " not used by op \"" + op + "\"");
        return switch ((String) op) {
            case "info" -> info(req);
            case "time" -> serveTime(req);
            case "stream" -> Stream.serve(req);
            case "asym" -> Asym.serve(req);
            case "pdf" -> Pdf.serve(req);
            default -> serveVector(req, op.equals("encrypt"));
        };
    }

    /**
     * The extra JCA providers cipherlab names in CIPHERLAB_JAVA_PROVIDERS
     * (`cipherlab ... --java-provider NAME=SPEC`): `NAME=JAR` or `NAME=JAR@CLASS`, separated
     * by newlines. Each jar is loaded in a class loader of its own; the provider is CLASS
     * (a public no-argument constructor), else the first java.security.Provider the jar
     * declares in META-INF/services. It serves as `java-NAME` through the same JCA calls as
     * SunJCE. A provider that cannot be loaded stops the runner: a figure under its name
     * would be a lie.
     */
    static void addExtraProviders() throws Exception {
        String spec = System.getenv("CIPHERLAB_JAVA_PROVIDERS");
        if (spec == null || spec.isBlank()) return;
        for (String line : spec.split("\n")) {
            if (line.isBlank()) continue;
            int eq = line.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("CIPHERLAB_JAVA_PROVIDERS: not NAME=JAR[@CLASS]: " + line);
            String name = line.substring(0, eq);
            String rest = line.substring(eq + 1);
            int at = rest.lastIndexOf('@');
            Path jar = Path.of(at < 0 ? rest : rest.substring(0, at));
            String cls = at < 0 ? null : rest.substring(at + 1);
            java.net.URLClassLoader loader = new java.net.URLClassLoader(
                    new java.net.URL[] {jar.toUri().toURL()}, Runner.class.getClassLoader());
            Provider jca = null;
            if (cls != null) {
                jca = (Provider) Class.forName(cls, true, loader).getDeclaredConstructor().newInstance();
            } else {
                for (Provider p : java.util.ServiceLoader.load(Provider.class, loader)) {
                    if (p.getClass().getClassLoader() == loader) {
                        jca = p;
                        break;
                    }
                }
            }
            if (jca == null) {
                throw new IllegalArgumentException(jar + " declares no java.security.Provider: name its class ("
                        + name + "=" + jar + "@CLASS)");
            }
            PROVIDERS.add(new Prov("java-" + name, jca.getName() + " (" + jar.getFileName() + ")", jca, false));
        }
    }

    public static void main(String[] args) throws Exception {
        Provider bc = new BouncyCastleProvider();
        PROVIDERS.add(new Prov("java-sunjce", "SunJCE", Security.getProvider("SunJCE"), false));
        PROVIDERS.add(new Prov("java-bc", "bcprov-jdk18on", bc, true));
        try {
            addExtraProviders();
        } catch (Exception | LinkageError e) {
            System.err.println("java runner: an extra JCA provider could not be loaded: " + e);
            System.exit(2);
        }
        ready = System.nanoTime();

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
        int malformed = 0;
        for (String line; (line = in.readLine()) != null; ) {
            if (line.isBlank()) continue;
            Map<String, Object> reply = new LinkedHashMap<>();
            Map<String, Object> req;
            try {
                req = Json.parseObject(line);
            } catch (RuntimeException e) {
                malformed++;
                reply.put("error", "not JSON: " + e.getMessage());
                out.println(Json.write(reply));
                out.flush();
                continue;
            }
            if (req.containsKey("id")) reply.put("id", req.get("id"));
            try {
                reply.putAll(answer(req));
            } catch (Unsupported e) {
                reply.put("error", "unsupported");
            } catch (AuthFailed e) {
                reply.put("error", "authentication failed");
            } catch (Exception e) {
                reply.put("error", e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            }
            out.println(Json.write(reply));
            out.flush();
        }
        System.exit(malformed > 0 ? 1 : 0);
    }

    /** Just enough JSON for the protocol: objects, arrays, strings, numbers, booleans, null. */
    static final class Json {
        private final String s;
        private int i;

        private Json(String s) {
            this.s = s;
        }

        @SuppressWarnings("unchecked")
        static Map<String, Object> parseObject(String text) {
            Json j = new Json(text);
            Object v = j.value();
            j.space();
            if (j.i != text.length()) throw new IllegalArgumentException("trailing characters at " + j.i);
            if (!(v instanceof Map)) throw new IllegalArgumentException("not a JSON object");
            return (Map<String, Object>) v;
        }

        private void space() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        }

        private char next() {
            space();
            if (i >= s.length()) throw new IllegalArgumentException("unexpected end");
            return s.charAt(i);
        }

        private void expect(char c) {
            if (next() != c) throw new IllegalArgumentException("expected '" + c + "' at " + i);
            i++;
        }

        private Object value() {
            char c = next();
            if (c == '{') {
                i++;
                Map<String, Object> m = new LinkedHashMap<>();
                if (next() == '}') {
                    i++;
                    return m;
                }
                while (true) {
                    if (next() != '"') throw new IllegalArgumentException("expected a key at " + i);
                    String k = string();
                    expect(':');
                    m.put(k, value());
                    if (next() == ',') {
                        i++;
                        continue;
                    }
                    expect('}');
                    return m;
                }
            }
            if (c == '[') {
                i++;
                List<Object> l = new ArrayList<>();
                if (next() == ']') {
                    i++;
                    return l;
                }
                while (true) {
                    l.add(value());
                    if (next() == ',') {
                        i++;
                        continue;
                    }
                    expect(']');
                    return l;
                }
            }
            if (c == '"') return string();
            for (String word : new String[] {"true", "false", "null"}) {
                if (s.startsWith(word, i)) {
                    i += word.length();
                    return word.equals("null") ? null : Boolean.valueOf(word.equals("true"));
                }
            }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            String num = s.substring(start, i);
            if (num.isEmpty()) throw new IllegalArgumentException("unexpected '" + c + "' at " + start);
            if (num.matches("-?[0-9]+")) return Long.valueOf(num);
            return Double.valueOf(num);
        }

        private String string() {
            i++; // the opening quote
            StringBuilder b = new StringBuilder();
            while (true) {
                if (i >= s.length()) throw new IllegalArgumentException("unterminated string");
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> b.append(e);
                }
            }
        }

        static String write(Object v) {
            StringBuilder b = new StringBuilder();
            write(b, v);
            return b.toString();
        }

        private static void write(StringBuilder b, Object v) {
            if (v == null) {
                b.append("null");
            } else if (v instanceof String str) {
                b.append('"');
                for (char c : str.toCharArray()) {
                    if (c == '"' || c == '\\') b.append('\\').append(c);
                    else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
                b.append('"');
            } else if (v instanceof Map<?, ?> m) {
                b.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) b.append(',');
                    first = false;
                    write(b, String.valueOf(e.getKey()));
                    b.append(':');
                    write(b, e.getValue());
                }
                b.append('}');
            } else if (v instanceof List<?> l) {
                b.append('[');
                for (int k = 0; k < l.size(); k++) {
                    if (k > 0) b.append(',');
                    write(b, l.get(k));
                }
                b.append(']');
            } else if (v instanceof long[] a) {
                b.append('[');
                for (int k = 0; k < a.length; k++) {
                    if (k > 0) b.append(',');
                    b.append(a[k]);
                }
                b.append(']');
            } else if (v instanceof Double d) {
                b.append(d.isNaN() || d.isInfinite() ? "null" : d.toString());
            } else {
                b.append(v);
            }
        }
    }
}
