package cipherlab;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.encryption.AccessPermission;
import org.apache.pdfbox.pdmodel.encryption.StandardProtectionPolicy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The JMH benchmark of the Java runner's `pdf` op (platforms/PROTOCOL.md; Pdf.java): one operation is
 * the whole job as a PDFBox user runs it, from the file's bytes in memory to the new file's
 * bytes in memory. Encrypt: {@code Loader.loadPDF} (with {@code password} if the input is
 * encrypted), {@code protect} with a {@code StandardProtectionPolicy}, {@code save}.
 * Decrypt: {@code Loader.loadPDF} with {@code password}, {@code setAllSecurityToBeRemoved},
 * {@code save}. With several input files, one operation does each in turn (the paper's
 * average time over a set of PDFs). Reading the files is the trial's setup, outside the
 * timed region; the saved bytes' lengths are returned to JMH's blackhole.
 *
 * <p>Every parameter is a JMH {@code @Param} string set by Pdf.java (the defaults here are
 * placeholders JMH wants; Pdf.java always sends every one). Passwords travel hex-encoded
 * (UTF-8), so that any character survives JMH's parameter handling. JMH's annotation
 * processor wants a benchmark class in a package: hence `cipherlab`, beside the runner's
 * default package.
 */
@State(Scope.Benchmark)
public class PdfBench {
    /** The input files (absolute paths, one per line, hex of their UTF-8 bytes). */
    @Param({""})
    public String input;

    /** {@code encrypt} or {@code decrypt}. */
    @Param({"encrypt"})
    public String direction;

    /** {@code aes-128-r4} or {@code aes-256-r6} (encrypt; for decrypt only checked by Pdf.java). */
    @Param({"aes-128-r4"})
    public String scheme;

    /** The password that opens the input (hex of its UTF-8 bytes; "" for none). */
    @Param({""})
    public String password;

    /** The new user password (encrypt; hex of UTF-8). */
    @Param({""})
    public String userPassword;

    /** The new owner password (encrypt; hex of UTF-8). */
    @Param({""})
    public String ownerPassword;

    static {
        LwcSecurityHandler.register();
    }

    private java.util.List<byte[]> files;
    private String open;
    private String user;
    private String owner;

    @Setup
    public void read() throws IOException {
        files = new java.util.ArrayList<>();
        for (String path : unhex(input).split("\n")) files.add(Files.readAllBytes(Path.of(path)));
        open = unhex(password);
        user = unhex(userPassword);
        owner = unhex(ownerPassword);
    }

    @Benchmark
    public int run() throws IOException {
        int n = 0;
        for (byte[] file : files) n ^= apply(file, direction, scheme, open, user, owner).length;
        return n;
    }

    /** One operation, as timed (see the class comment). */
    public static byte[] apply(byte[] file, String direction, String scheme, String open, String user, String owner)
            throws IOException {
        try (PDDocument doc = Loader.loadPDF(file, open)) {
            if (direction.equals("encrypt") && LwcSecurityHandler.cfm(scheme) != null) {
                doc.protect(new LwcSecurityHandler.Policy(owner, user, LwcSecurityHandler.cfm(scheme)));
            } else if (direction.equals("encrypt")) {
                StandardProtectionPolicy policy = new StandardProtectionPolicy(owner, user, new AccessPermission());
                policy.setEncryptionKeyLength(keyBits(scheme));
                policy.setPreferAES(true);
                doc.protect(policy);
            } else {
                doc.setAllSecurityToBeRemoved(true);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream(file.length + 4096);
            doc.save(out);
            return out.toByteArray();
        }
    }

    /** The key length of a scheme: AES-128 gives V4/R4 (AESV2), AES-256 V5/R6 (AESV3). */
    public static int keyBits(String scheme) {
        return switch (scheme) {
            case "aes-128-r4", "ascon-128-r4", "xoodyak-r4", "ascon-aead128-r4" -> 128;
            case "aes-256-r6" -> 256;
            default -> throw new IllegalArgumentException("scheme \"" + scheme + "\" is not one of the pdf op's");
        };
    }

    /** The revision a scheme writes. */
    public static int revision(String scheme) {
        return keyBits(scheme) == 128 ? 4 : 6;
    }

    /** The crypt filter method a scheme writes (/StdCF's /CFM). */
    public static String cfm(String scheme) {
        String lwc = LwcSecurityHandler.cfm(scheme);
        if (lwc != null) return lwc;
        return keyBits(scheme) == 128 ? "AESV2" : "AESV3";
    }

    public static String hex(String s) {
        return java.util.HexFormat.of().formatHex(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    public static String unhex(String h) {
        return new String(java.util.HexFormat.of().parseHex(h), java.nio.charset.StandardCharsets.UTF_8);
    }
}
