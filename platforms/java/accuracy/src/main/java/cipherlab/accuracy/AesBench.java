package cipherlab.accuracy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Provider;
import java.security.Security;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The runner's per-message calls on SunJCE (Cipher.getInstance, init with the loaded key
 * and IV, doFinal), measured by JMH. Key, IV, nonce and inputs come from system
 * properties cipherlab.key, .iv, .nonce, .cbc, .gcm (hex and file paths).
 */
@State(Scope.Thread)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AesBench {
    Provider sunjce;
    SecretKeySpec key;
    IvParameterSpec iv;
    GCMParameterSpec nonce;
    byte[] cbcData;
    byte[] gcmData;

    @Setup
    public void load() throws Exception {
        HexFormat hex = HexFormat.of();
        sunjce = Security.getProvider("SunJCE");
        key = new SecretKeySpec(hex.parseHex(System.getProperty("cipherlab.key")), "AES");
        iv = new IvParameterSpec(hex.parseHex(System.getProperty("cipherlab.iv")));
        nonce = new GCMParameterSpec(128, hex.parseHex(System.getProperty("cipherlab.nonce")));
        cbcData = Files.readAllBytes(Path.of(System.getProperty("cipherlab.cbc")));
        gcmData = Files.readAllBytes(Path.of(System.getProperty("cipherlab.gcm")));
    }

    @Benchmark
    public byte[] cbc() throws Exception {
        Cipher c = Cipher.getInstance("AES/CBC/PKCS5Padding", sunjce);
        c.init(Cipher.ENCRYPT_MODE, key, iv);
        return c.doFinal(cbcData);
    }

    @Benchmark
    public byte[] gcm() throws Exception {
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding", sunjce);
        c.init(Cipher.ENCRYPT_MODE, key, nonce);
        c.updateAAD(new byte[0]);
        return c.doFinal(gcmData);
    }
}
