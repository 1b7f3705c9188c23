// Package accuracy is the accuracy check's reference for the Go runner: the same
// per-message calls as the runner times, measured by Go's own testing.B.
//
//	cd platforms/go && CIPHERLAB_KEY=.. CIPHERLAB_IV=.. CIPHERLAB_NONCE=.. \
//	  CIPHERLAB_CBC_INPUT=1048576.bin CIPHERLAB_GCM_INPUT=16384.bin \
//	  go test ./accuracy -run '^$' -bench . -count 5
package accuracy

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/hex"
	"os"
	"testing"
)

func input(b *testing.B, name string) []byte {
	data, err := os.ReadFile(os.Getenv(name))
	if err != nil {
		b.Skipf("%s: %v", name, err)
	}
	return data
}

func hexEnv(b *testing.B, name string) []byte {
	v, err := hex.DecodeString(os.Getenv(name))
	if err != nil || len(v) == 0 {
		b.Skipf("%s is not set to hex", name)
	}
	return v
}

var sink int

// BenchmarkCBC: key schedule, CBC with PKCS#7, one message (the runner's call).
func BenchmarkCBC(b *testing.B) {
	key, iv, data := hexEnv(b, "CIPHERLAB_KEY"), hexEnv(b, "CIPHERLAB_IV"), input(b, "CIPHERLAB_CBC_INPUT")
	for b.Loop() {
		block, _ := aes.NewCipher(key)
		n := aes.BlockSize - len(data)%aes.BlockSize
		in := make([]byte, len(data)+n)
		copy(in, data)
		for i := len(data); i < len(in); i++ {
			in[i] = byte(n)
		}
		out := make([]byte, len(in))
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(out, in)
		sink ^= len(out)
	}
}

// BenchmarkGCM: key schedule, GCM, one message with its tag (the runner's call).
func BenchmarkGCM(b *testing.B) {
	key, nonce, data := hexEnv(b, "CIPHERLAB_KEY"), hexEnv(b, "CIPHERLAB_NONCE"), input(b, "CIPHERLAB_GCM_INPUT")
	for b.Loop() {
		block, _ := aes.NewCipher(key)
		a, _ := cipher.NewGCM(block)
		out := a.Seal(make([]byte, 0, len(data)+a.Overhead()), nonce, data, nil)
		sink ^= len(out)
	}
}
