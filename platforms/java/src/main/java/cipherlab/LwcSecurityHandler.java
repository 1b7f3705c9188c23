package cipherlab;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.pdfbox.cos.COSArray;
import org.apache.pdfbox.cos.COSBase;
import org.apache.pdfbox.cos.COSDictionary;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.cos.COSStream;
import org.apache.pdfbox.cos.COSString;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.encryption.AccessPermission;
import org.apache.pdfbox.pdmodel.encryption.DecryptionMaterial;
import org.apache.pdfbox.pdmodel.encryption.PDCryptFilterDictionary;
import org.apache.pdfbox.pdmodel.encryption.PDEncryption;
import org.apache.pdfbox.pdmodel.encryption.ProtectionPolicy;
import org.apache.pdfbox.pdmodel.encryption.SecurityHandler;
import org.apache.pdfbox.pdmodel.encryption.SecurityHandlerFactory;
import org.apache.pdfbox.pdmodel.encryption.StandardProtectionPolicy;
import org.apache.pdfbox.pdmodel.encryption.StandardSecurityHandler;
import org.bouncycastle.crypto.InvalidCipherTextException;
import org.bouncycastle.crypto.engines.AsconAEAD128;
import org.bouncycastle.crypto.engines.AsconEngine;
import org.bouncycastle.crypto.engines.XoodyakEngine;
import org.bouncycastle.crypto.modes.AEADCipher;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * The lightweight-ciphers-in-PDF paper's swap in PDFBox: the Standard security handler at
 * revision 4 (its O and U values, its file key from the password, its per-object key
 * MD5(file key, object and generation number, "sAlT") of AESV2) with AES-128-CBC replaced
 * by BouncyCastle's Ascon-128 (v1.2, {@code AsconEngine}) or {@code XoodyakEngine} for
 * every string and stream: a random 16-byte nonce in front of the ciphertext (where AESV2
 * keeps its IV), the 16-byte tag dropped, as the paper dropped it. With Ascon-AEAD128
 * ({@code AsconAEAD128}, SP 800-232) the tag is kept after the ciphertext and checked: a
 * changed string or stream does not open. Not a format any reader knows: the /Encrypt
 * dictionary says /Filter /CipherlabLWC and /CFM /Ascon128, /Xoodyak or /AsconAEAD128, and
 * only this handler (registered with PDFBox's {@code SecurityHandlerFactory} by
 * {@link #register}) opens it.
 *
 * <p>Decryption without the tag: BouncyCastle's engines write the plaintext before they
 * check the tag, so the handler decrypts the ciphertext followed by 16 zero bytes and
 * ignores the failed check (a duplex decrypts without its tag; only the check needs it).
 */
public final class LwcSecurityHandler extends SecurityHandler<LwcSecurityHandler.Policy> {
    public static final String FILTER = "CipherlabLWC";
    static final byte[] SALT = {0x73, 0x41, 0x6c, 0x54};

    /** The swap's protection policy: the Standard policy's passwords and a cipher. */
    public static final class Policy extends ProtectionPolicy {
        final String owner;
        final String user;
        final String cipher;

        public Policy(String owner, String user, String cipher) {
            this.owner = owner;
            this.user = user;
            this.cipher = cipher;
            setEncryptionKeyLength(128);
        }
    }

    private String cipher; // the /CFM name: Ascon128, Xoodyak or AsconAEAD128

    /**
     * Where {@link #seal} writes, when set, one JSON line per string and stream it encrypts:
     * object and generation numbers, kind, object key, nonce, plaintext and what it wrote,
     * in hex. The `pdf` op sets it for its one untimed operation only (the request's
     * {@code trace}), so that cipherlab can encrypt each with its own cipher and compare
     * the bytes; the timed operations never trace. Each line also says which of the
     * request's input files it came from ({@link #traceFile}).
     */
    public static java.io.Writer trace;

    /** The input file being traced: its place in the request's {@code input}. */
    public static int traceFile;
    private final SecureRandom random = new SecureRandom();
    private final Set<Object> done = Collections.newSetFromMap(new IdentityHashMap<>());

    public LwcSecurityHandler() {}

    public LwcSecurityHandler(Policy policy) {
        super(policy);
        cipher = policy.cipher;
    }

    private static boolean registered;

    /** Makes PDFBox use this handler for the policy and for /Filter /CipherlabLWC. */
    public static synchronized void register() {
        if (!registered) {
            SecurityHandlerFactory.INSTANCE.registerHandler(FILTER, LwcSecurityHandler.class, Policy.class);
            registered = true;
        }
    }

    /** The /CFM name of a scheme of the `pdf` op, or null. */
    public static String cfm(String scheme) {
        return switch (scheme) {
            case "ascon-128-r4" -> "Ascon128";
            case "xoodyak-r4" -> "Xoodyak";
            case "ascon-aead128-r4" -> "AsconAEAD128";
            default -> null;
        };
    }

    @Override
    public void prepareDocumentForEncryption(PDDocument doc) throws IOException {
        Policy p = getProtectionPolicy();
        StandardProtectionPolicy std = new StandardProtectionPolicy(p.owner, p.user, new AccessPermission());
        std.setEncryptionKeyLength(128);
        std.setPreferAES(true);
        StandardSecurityHandler standard = new StandardSecurityHandler(std);
        standard.prepareDocumentForEncryption(doc); // O, U, P, the file key: revision 4
        setEncryptionKey(standard.getEncryptionKey());
        PDEncryption e = doc.getEncryption();
        e.setFilter(FILTER);
        PDCryptFilterDictionary cf = e.getStdCryptFilterDictionary();
        cf.setCryptFilterMethod(COSName.getPDFName(cipher));
    }

    @Override
    public void prepareForDecryption(PDEncryption encryption, COSArray documentIDArray, DecryptionMaterial material)
            throws IOException {
        PDCryptFilterDictionary cf = encryption.getStdCryptFilterDictionary();
        String name = cf == null || cf.getCryptFilterMethod() == null ? null : cf.getCryptFilterMethod().getName();
        if (!"Ascon128".equals(name) && !"Xoodyak".equals(name) && !"AsconAEAD128".equals(name)) {
            throw new IOException("/Filter /" + FILTER + " with /CFM " + name + ": not Ascon128, Xoodyak or AsconAEAD128");
        }
        if (encryption.getRevision() != 4) throw new IOException("/Filter /" + FILTER + " at R " + encryption.getRevision());
        cipher = name;
        StandardSecurityHandler standard = new StandardSecurityHandler();
        standard.prepareForDecryption(encryption, documentIDArray, material); // checks the password
        setEncryptionKey(standard.getEncryptionKey());
        setCurrentAccessPermission(standard.getCurrentAccessPermission());
    }

    byte[] objectKey(long obj, long gen) {
        byte[] key = getEncryptionKey();
        byte[] k = Arrays.copyOf(key, key.length + 5);
        k[key.length] = (byte) obj;
        k[key.length + 1] = (byte) (obj >> 8);
        k[key.length + 2] = (byte) (obj >> 16);
        k[key.length + 3] = (byte) gen;
        k[key.length + 4] = (byte) (gen >> 8);
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            md5.update(k);
            md5.update(SALT);
            return Arrays.copyOf(md5.digest(), 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    AEADCipher engine() {
        return switch (cipher) {
            case "Ascon128" -> new AsconEngine(AsconEngine.AsconParameters.ascon128);
            case "AsconAEAD128" -> new AsconAEAD128();
            default -> new XoodyakEngine();
        };
    }

    /** Whether the tag is kept after the ciphertext (Ascon-AEAD128) or dropped (the paper's swap). */
    boolean tagKept() {
        return cipher.equals("AsconAEAD128");
    }

    /** nonce ‖ ciphertext, and the tag where it is kept. */
    byte[] seal(long obj, long gen, byte[] pt, String kind) throws IOException {
        byte[] nonce = new byte[16];
        random.nextBytes(nonce);
        byte[] key = objectKey(obj, gen);
        AEADCipher c = engine();
        c.init(true, new ParametersWithIV(new KeyParameter(key), nonce));
        byte[] out = new byte[c.getOutputSize(pt.length)];
        int n = c.processBytes(pt, 0, pt.length, out, 0);
        try {
            n += c.doFinal(out, n);
        } catch (InvalidCipherTextException e) {
            throw new IOException(e);
        }
        int kept = tagKept() ? n : pt.length;
        byte[] sealed = Arrays.copyOf(nonce, 16 + kept);
        System.arraycopy(out, 0, sealed, 16, kept);
        if (trace != null) {
            java.util.HexFormat hex = java.util.HexFormat.of();
            trace.write("{\"file\":" + traceFile + ",\"obj\":" + obj + ",\"gen\":" + gen + ",\"kind\":\"" + kind + "\",\"key\":\""
                    + hex.formatHex(key) + "\",\"nonce\":\"" + hex.formatHex(nonce) + "\",\"plain\":\""
                    + hex.formatHex(pt) + "\",\"sealed\":\"" + hex.formatHex(sealed) + "\"}\n");
        }
        return sealed;
    }

    byte[] open(long obj, long gen, byte[] sealed) throws IOException {
        int overhead = tagKept() ? 32 : 16;
        if (sealed.length < overhead) throw new IOException("object " + obj + ": shorter than its nonce and tag");
        int len = sealed.length - overhead;
        AEADCipher c = engine();
        c.init(false, new ParametersWithIV(new KeyParameter(objectKey(obj, gen)), Arrays.copyOf(sealed, 16)));
        // The paper's swap has no tag: ct ‖ 16 zero bytes in its place.
        byte[] in = tagKept() ? Arrays.copyOfRange(sealed, 16, sealed.length)
                : Arrays.copyOfRange(sealed, 16, sealed.length + 16);
        byte[] out = new byte[len + 32];
        int n = c.processBytes(in, 0, in.length, out, 0);
        try {
            c.doFinal(out, n);
        } catch (InvalidCipherTextException e) {
            if (tagKept()) {
                throw new IOException("object " + obj + " " + gen + ": authentication failed (" + e.getMessage() + ")");
            }
            // no tag: the plaintext is written before the check (see the class comment)
        }
        return Arrays.copyOf(out, len);
    }

    @Override
    public void encryptStream(COSStream stream, long objNum, int genNum) throws IOException {
        if (!stream.hasData()) return;
        byte[] raw;
        try (InputStream is = stream.createRawInputStream()) {
            raw = is.readAllBytes();
        }
        byte[] sealed = seal(objNum, genNum, raw, "stream");
        try (OutputStream os = stream.createRawOutputStream()) {
            os.write(sealed);
        }
    }

    @Override
    public void encryptString(COSString string, long objNum, int genNum) throws IOException {
        string.setValue(seal(objNum, genNum, string.getBytes(), "string"));
    }

    @Override
    public COSBase decrypt(COSBase obj, long objNum, long genNum) throws IOException {
        if (obj instanceof COSString s) {
            if (done.add(s)) s.setValue(open(objNum, genNum, s.getBytes()));
        } else if (obj instanceof COSStream s) {
            decryptStream(s, objNum, genNum);
        } else if (obj instanceof COSDictionary d) {
            dictionary(d, objNum, genNum);
        } else if (obj instanceof COSArray a) {
            for (int i = 0; i < a.size(); i++) decrypt(a.get(i), objNum, genNum);
        }
        return obj;
    }

    private void dictionary(COSDictionary d, long objNum, long genNum) throws IOException {
        if (d.getItem(COSName.CF) != null || !done.add(d)) return; // the /Encrypt dictionary; once
        entries(d, objNum, genNum);
    }

    /** A dictionary's strings, arrays and dictionaries (a signature's /Contents is not encrypted). */
    private void entries(COSDictionary d, long objNum, long genNum) throws IOException {
        boolean sig = COSName.SIG.equals(d.getCOSName(COSName.TYPE));
        for (Map.Entry<COSName, COSBase> e : d.entrySet()) {
            COSBase v = e.getValue();
            if (sig && COSName.CONTENTS.equals(e.getKey())) continue;
            if (v instanceof COSString || v instanceof COSArray || v instanceof COSDictionary) decrypt(v, objNum, genNum);
        }
    }

    @Override
    public void decryptStream(COSStream stream, long objNum, long genNum) throws IOException {
        if (COSName.XREF.equals(stream.getCOSName(COSName.TYPE)) || !done.add(stream)) return;
        entries(stream, objNum, genNum);
        byte[] sealed;
        try (InputStream is = stream.createRawInputStream()) {
            sealed = is.readAllBytes();
        }
        if (sealed.length == 0) return;
        byte[] plain = open(objNum, genNum, sealed);
        try (OutputStream os = stream.createRawOutputStream()) {
            os.write(plain);
        }
    }
}
