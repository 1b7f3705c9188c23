// Encrypts with Java's JCE, for crates/ciphers/tests/openssl_enc.rs (run as a single-file
// program: `java JceVectors.java`, Java 11+). Reads lines from standard input:
//
//     <transformation> <key hex> <iv hex> <aad hex> <data hex>
//
// with "-" for an empty value, and prints one line per input: the output in lower-case
// hex ("-" when empty), or "ERR <exception>". GCM uses a 128-bit tag, which JCE appends
// to the ciphertext.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

public class JceVectors {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "US-ASCII"));
        String line;
        while ((line = in.readLine()) != null) {
            line = line.trim();
            if (line.isEmpty()) {
                continue;
            }
            try {
                System.out.println(hex(encrypt(line.split(" "))));
            } catch (Exception e) {
                System.out.println("ERR " + e);
            }
        }
    }

    static byte[] encrypt(String[] f) throws Exception {
        if (f.length != 5) {
            throw new IllegalArgumentException("expected 5 fields, got " + f.length);
        }
        String transformation = f[0];
        byte[] key = unhex(f[1]), iv = unhex(f[2]), aad = unhex(f[3]), data = unhex(f[4]);
        String algorithm = transformation.substring(0, transformation.indexOf('/'));
        SecretKeySpec k = new SecretKeySpec(key, algorithm);
        Cipher c = Cipher.getInstance(transformation);
        if (transformation.contains("/GCM/")) {
            c.init(Cipher.ENCRYPT_MODE, k, new GCMParameterSpec(128, iv));
        } else if (iv.length == 0) {
            c.init(Cipher.ENCRYPT_MODE, k);
        } else {
            c.init(Cipher.ENCRYPT_MODE, k, new IvParameterSpec(iv));
        }
        if (aad.length > 0) {
            c.updateAAD(aad);
        }
        return c.doFinal(data);
    }

    static byte[] unhex(String s) {
        if (s.equals("-")) {
            return new byte[0];
        }
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    static String hex(byte[] b) {
        if (b.length == 0) {
            return "-";
        }
        StringBuilder sb = new StringBuilder(2 * b.length);
        for (byte x : b) {
            sb.append(String.format("%02x", x));
        }
        return sb.toString();
    }
}
