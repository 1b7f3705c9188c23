import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.encryption.PDEncryption;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The `pdf` operation (platforms/PROTOCOL.md): Apache PDFBox's Standard security handler
 * encrypting (AES-128 at revision 4, AES-256 at revision 6) or decrypting a whole PDF, timed
 * by JMH as the lightweight-ciphers-in-PDF paper timed iText's (Fig. 10: average time,
 * Fig. 11: single shot). The operation is {@link cipherlab.PdfBench#apply}; JMH runs it in forked JVMs
 * with the request's values as the benchmark's {@code @Param}s. Before JMH the runner makes
 * one untimed operation here, checks its result by opening it again with PDFBox, and writes
 * it to {@code output} (and, for the lightweight schemes, every string and stream's bytes to
 * {@code trace}) when asked: the caller's conformance check. Mode {@code check} stops there;
 * mode {@code profile} then samples the operation with the Flight Recorder ({@link Profile})
 * instead of timing it.
 */
final class Pdf {
    private Pdf() {}

    static final long MAX_INPUT = 1L << 30; // PDFBox holds the file and its result in memory

    static final List<String> SCHEMES = List.of("aes-128-r4", "aes-256-r6", "ascon-128-r4", "xoodyak-r4",
            "ascon-aead128-r4");

    static Map<String, Object> serve(Map<String, Object> req) throws Exception {
        cipherlab.LwcSecurityHandler.register(); // before any file is opened
        List<Path> inputs = inputs(req);
        String direction = string(req, "direction", null);
        if (!"encrypt".equals(direction) && !"decrypt".equals(direction)) {
            throw new Runner.Refused("direction must be \"encrypt\" or \"decrypt\"");
        }
        boolean encrypt = direction.equals("encrypt");
        String scheme = string(req, "scheme", null);
        if (scheme == null && encrypt) throw new Runner.Refused("missing field \"scheme\"");
        if (scheme != null && !SCHEMES.contains(scheme)) {
            throw new Runner.Unsupported();
        }
        if (!encrypt) {
            for (String f : new String[] {"user_password", "owner_password"}) {
                if (req.get(f) != null) throw new Runner.Refused("\"" + f + "\" is for direction encrypt only");
            }
        }
        String password = string(req, "password", "");
        String user = string(req, "user_password", "");
        String owner = string(req, "owner_password", "");
        String mode = string(req, "mode", "avgt");
        if (!List.of("avgt", "ss", "check", "profile").contains(mode)) {
            throw new Runner.Refused("mode must be \"avgt\", \"ss\", \"check\" or \"profile\"");
        }
        boolean single = mode.equals("ss");
        if (!mode.equals("profile") && req.get("profile_ms") != null) {
            throw new Runner.Refused("\"profile_ms\" is for mode profile only");
        }
        int profileMs = count(req, "profile_ms", 2_000, 10, 600_000);
        String trace = string(req, "trace", null);
        if (trace != null && (!encrypt || cipherlab.LwcSecurityHandler.cfm(scheme) == null)) {
            throw new Runner.Refused("\"trace\" is for encrypting with a lightweight scheme only");
        }
        int warmups = count(req, "warmup_iterations", 2, 0, 1_000);
        int iterations = count(req, "iterations", 3, 1, 1_000);
        int forks = count(req, "forks", 1, 0, 20);
        int iterationMs = count(req, "iteration_ms", 200, 1, 600_000);
        if (single && req.get("iteration_ms") != null) {
            throw new Runner.Refused("\"iteration_ms\" is for mode avgt only (a single-shot iteration is one call)");
        }
        List<Path> outputs = paths(req, "output");
        if (outputs != null && outputs.size() != inputs.size()) {
            throw new Runner.Refused("\"output\" must name as many files as \"input\"");
        }

        List<byte[]> files = new ArrayList<>();
        long inLen = 0;
        for (Path in : inputs) {
            if (!Files.isRegularFile(in)) throw new Runner.Refused("input " + in + " is not a file");
            inLen += Files.size(in);
            if (inLen > MAX_INPUT) throw new Runner.Refused("the input files are over 1 GiB together");
            files.add(Files.readAllBytes(in));
        }

        // Each input: opens with the password; for decrypt it must be encrypted (with the
        // scheme, when one is given).
        List<Integer> pages = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            try (PDDocument doc = Loader.loadPDF(files.get(i), password)) {
                pages.add(doc.getNumberOfPages());
                if (!encrypt) {
                    if (!doc.isEncrypted()) {
                        throw new Runner.Refused("input " + inputs.get(i) + " is not encrypted: nothing to decrypt");
                    }
                    int r = doc.getEncryption().getRevision();
                    String cfm = cfm(doc.getEncryption());
                    if (scheme != null && (r != cipherlab.PdfBench.revision(scheme)
                            || !cipherlab.PdfBench.cfm(scheme).equals(cfm))) {
                        throw new Runner.Refused("input " + inputs.get(i) + " is encrypted at revision " + r + " with "
                                + cfm + ", not as " + scheme);
                    }
                }
            } catch (org.apache.pdfbox.pdmodel.encryption.InvalidPasswordException e) {
                throw new Runner.Refused("input " + inputs.get(i) + " does not open with the password given: "
                        + e.getMessage());
            }
        }

        // One untimed operation (the first in this JVM, as the answer's first_call_ns), each
        // result checked, written to `output` and traced when asked.
        List<byte[]> results = new ArrayList<>();
        long firstCall;
        try (java.io.Writer tracing = trace == null ? null : Files.newBufferedWriter(Path.of(trace))) {
            cipherlab.LwcSecurityHandler.trace = tracing;
            long t0 = System.nanoTime();
            for (int i = 0; i < files.size(); i++) {
                cipherlab.LwcSecurityHandler.traceFile = i;
                results.add(cipherlab.PdfBench.apply(files.get(i), direction, scheme, password, user, owner));
            }
            firstCall = System.nanoTime() - t0;
        } finally {
            cipherlab.LwcSecurityHandler.trace = null;
        }
        Map<String, Object> check = new LinkedHashMap<>();
        long outLen = 0;
        for (int i = 0; i < results.size(); i++) {
            check = verify(results.get(i), encrypt, scheme, user, owner, pages.get(i));
            outLen += results.get(i).length;
        }
        for (int i = 0; outputs != null && i < outputs.size(); i++) write(outputs.get(i), results.get(i));
        long allPages = pages.stream().mapToLong(Integer::longValue).sum();
        if (mode.equals("check") || mode.equals("profile")) {
            Map<String, Object> res = new LinkedHashMap<>();
            res.put("direction", direction);
            if (scheme != null) res.put("scheme", scheme);
            res.put("mode", mode);
            res.put("files", (long) files.size());
            res.put("in_len", inLen);
            res.put("pages", allPages);
            res.put("out_len", outLen);
            res.putAll(check);
            res.put("first_call_ns", firstCall);
            if (mode.equals("profile")) {
                String s = scheme;
                res.putAll(Profile.of(() -> {
                    int n = 0;
                    for (byte[] file : files) n ^= cipherlab.PdfBench.apply(file, direction, s, password, user, owner).length;
                    return n;
                }, profileMs, "cipherlab.PdfBench.apply"));
            }
            res.putAll(Runner.runFacts());
            res.put("library", "pdfbox");
            res.put("library_version", org.apache.pdfbox.util.Version.getVersion());
            return res;
        }

        Options opts = new OptionsBuilder()
                .include("^" + java.util.regex.Pattern.quote(cipherlab.PdfBench.class.getName()) + "\\.run$")
                .param("input", cipherlab.PdfBench.hex(String.join("\n", inputs.stream().map(Path::toString).toList())))
                .param("direction", direction)
                .param("scheme", scheme == null ? "" : scheme)
                .param("password", cipherlab.PdfBench.hex(password))
                .param("userPassword", cipherlab.PdfBench.hex(user))
                .param("ownerPassword", cipherlab.PdfBench.hex(owner))
                .mode(single ? Mode.SingleShotTime : Mode.AverageTime)
                .timeUnit(TimeUnit.NANOSECONDS)
                .warmupIterations(warmups)
                .measurementIterations(iterations)
                .warmupTime(TimeValue.milliseconds(iterationMs))
                .measurementTime(TimeValue.milliseconds(iterationMs))
                .forks(forks)
                .threads(1)
                .shouldFailOnError(true)
                .output(jmhLog().toString())
                .build();
        Collection<RunResult> runs;
        try {
            runs = new org.openjdk.jmh.runner.Runner(opts).run();
        } catch (RunnerException e) {
            throw new Runner.Refused("JMH failed: " + e.getMessage() + logTail());
        }
        if (runs.size() != 1) throw new Runner.Refused("JMH ran " + runs.size() + " benchmarks, not 1" + logTail());
        RunResult run = runs.iterator().next();

        Result<?> primary = run.getPrimaryResult();
        List<Object> perFork = new ArrayList<>();
        List<Object> opsPerFork = new ArrayList<>();
        for (BenchmarkResult br : run.getBenchmarkResults()) {
            List<Object> scores = new ArrayList<>();
            List<Object> ops = new ArrayList<>();
            for (IterationResult ir : br.getIterationResults()) {
                scores.add(ir.getPrimaryResult().getScore());
                ops.add(ir.getMetadata().getMeasuredOps());
            }
            perFork.add(scores);
            opsPerFork.add(ops);
        }
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("direction", direction);
        if (scheme != null) res.put("scheme", scheme);
        res.put("mode", mode);
        res.put("unit", primary.getScoreUnit());
        res.put("score", primary.getScore());
        res.put("score_error", primary.getScoreError());
        res.put("score_confidence", List.of(primary.getScoreConfidence()[0], primary.getScoreConfidence()[1]));
        res.put("samples", primary.getSampleCount());
        res.put("iteration_scores", perFork);
        res.put("iteration_ops", opsPerFork);
        res.put("forks", (long) forks);
        res.put("warmup_iterations", (long) warmups);
        res.put("iterations", (long) iterations);
        if (!single) res.put("iteration_ms", (long) iterationMs);
        res.put("files", (long) files.size());
        res.put("in_len", inLen);
        res.put("pages", allPages);
        res.put("out_len", outLen);
        res.putAll(check);
        res.put("first_call_ns", firstCall);
        res.putAll(Runner.runFacts());
        res.put("library", "pdfbox");
        res.put("library_version", org.apache.pdfbox.util.Version.getVersion());
        res.put("jmh_version", org.openjdk.jmh.util.Version.getPlainVersion());
        return res;
    }

    /**
     * The untimed operation's result opens again: an encrypted one with the user password
     * and with the owner password, at the scheme's revision and AES crypt filter; a
     * decrypted one without a password and not encrypted; both with the input's pages.
     */
    static Map<String, Object> verify(byte[] result, boolean encrypt, String scheme, String user, String owner,
            int pages) throws Exception {
        Map<String, Object> facts = new LinkedHashMap<>();
        try (PDDocument doc = Loader.loadPDF(result, encrypt ? user : "")) {
            if (doc.getNumberOfPages() != pages) {
                throw new Runner.Refused("the result has " + doc.getNumberOfPages() + " pages, the input " + pages);
            }
            if (!encrypt) {
                if (doc.isEncrypted()) throw new Runner.Refused("the decrypted result is still encrypted");
                return facts;
            }
            PDEncryption e = doc.getEncryption();
            if (e == null) throw new Runner.Refused("the encrypted result is not encrypted");
            String cfm = cfm(e);
            String want = cipherlab.PdfBench.cfm(scheme);
            if (e.getRevision() != cipherlab.PdfBench.revision(scheme) || !want.equals(cfm)) {
                throw new Runner.Refused("the result is V" + e.getVersion() + " R" + e.getRevision() + " " + cfm
                        + ", not as " + scheme);
            }
            facts.put("v", (long) e.getVersion());
            facts.put("r", (long) e.getRevision());
            facts.put("cfm", cfm);
            facts.put("filter", e.getFilter());
        }
        try (PDDocument doc = Loader.loadPDF(result, owner.isEmpty() ? user : owner)) {
            if (doc.getNumberOfPages() != pages) throw new Runner.Refused("the result opened by its owner differs");
        }
        return facts;
    }

    /** /StdCF's /CFM, or null. */
    static String cfm(PDEncryption e) {
        var cf = e.getStdCryptFilterDictionary();
        return cf == null || cf.getCryptFilterMethod() == null ? null : cf.getCryptFilterMethod().getName();
    }

    /** Writes {@code bytes} to {@code to} through a temporary file beside it and a rename. */
    static void write(Path to, byte[] bytes) throws IOException {
        Path abs = to.toAbsolutePath();
        Path tmp = Files.createTempFile(abs.getParent(), "." + abs.getFileName() + ".", ".tmp");
        try {
            Files.write(tmp, bytes);
            Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static Path log;

    /** JMH's human-readable output goes to a file (stdout is the protocol's), emptied per run. */
    static Path jmhLog() throws IOException {
        if (log == null) {
            log = Files.createTempFile("cipherlab-java-jmh-", ".log");
            log.toFile().deleteOnExit();
        }
        Files.write(log, new byte[0]);
        return log;
    }

    /** The last lines of JMH's output, for an error (and the runner's stderr). */
    static String logTail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return "\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (Exception e) {
            return "";
        }
    }

    /** {@code input}: one file's path, or an array of paths that one operation does in turn. */
    static List<Path> inputs(Map<String, Object> req) throws Runner.Refused {
        List<Path> in = paths(req, "input");
        if (in == null) throw new Runner.Refused("missing field \"input\"");
        return in;
    }

    /** A field holding one path or a non-empty array of them (no line breaks: JMH gets them one per line); null when absent. */
    static List<Path> paths(Map<String, Object> req, String name) throws Runner.Refused {
        Object v = req.get(name);
        if (v == null) return null;
        List<?> list = v instanceof List<?> l ? l : List.of(v);
        List<Path> out = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof String s) || s.isEmpty() || s.contains("\n")) {
                throw new Runner.Refused("\"" + name + "\" must be a path or a non-empty array of paths");
            }
            out.add(Path.of(s).toAbsolutePath());
        }
        if (out.isEmpty()) throw new Runner.Refused("\"" + name + "\" must be a path or a non-empty array of paths");
        return out;
    }

    static String string(Map<String, Object> req, String name, String dflt) throws Runner.Refused {
        Object v = req.get(name);
        if (v == null) return dflt;
        if (!(v instanceof String s)) throw new Runner.Refused("\"" + name + "\" must be a string");
        return s;
    }

    static int count(Map<String, Object> req, String name, int dflt, int min, int max) throws Runner.Refused {
        if (req.get(name) == null) return dflt;
        return Stream.count(req, name, min, max);
    }
}
