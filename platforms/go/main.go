// Command runner is cipherlab's Go runner: crypto/aes, crypto/cipher, crypto/des,
// crypto/rc4 and golang.org/x/crypto (Blowfish, ChaCha20-Poly1305) behind the protocol of
// platforms/PROTOCOL.md (JSON lines on stdin and stdout: the vector operations of
// `cipherlab vectors`, `info` and `time`).
package main

import (
	"bufio"
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/rc4"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/blowfish"
	"golang.org/x/crypto/chacha20poly1305"
)

var started = time.Now() // start-up is measured from here (package initialisation)

var (
	errUnsupported = errors.New("unsupported")
	errAuth        = errors.New("authentication failed")
)

// ------------------------------------------------------------------ catalogue names

var blockModes = []string{"ecb", "cbc", "cfb", "cfb8", "cfb1", "ofb", "ctr"}

// probeSet is the probe set of an `info` request (PROTOCOL.md, "info"): per algorithm with
// many key sizes, the sizes to list it at (Bits) and the sizes its names may have (Range).
type probeSet map[string]struct {
	Bits  []int `json:"bits"`
	Range []int `json:"range"`
}

// probe is the last `info`'s probe set; until one brings it, such names are unsupported.
var probe = probeSet{}

// spec is a parsed catalogue name: family, key bits, mode and the sizes that follow.
type spec struct {
	name, family, mode string
	bits, block        int
	keyLen, ivLen      int
	aead, pads         bool
}

func newSpec(name, family string, bits int, mode string) spec {
	s := spec{name: name, family: family, bits: bits, mode: mode, block: 8}
	if family == "aes" {
		s.block = 16
	}
	s.aead = mode == "gcm" || family == "chacha20-poly1305"
	switch family {
	case "des":
		s.keyLen = 8
	case "3des":
		s.keyLen = bits / 7
	default:
		s.keyLen = bits / 8
	}
	switch {
	case s.aead:
		s.ivLen = 12
	case mode == "" || mode == "ecb":
		s.ivLen = 0
	default:
		s.ivLen = s.block
	}
	s.pads = mode == "ecb" || mode == "cbc"
	return s
}

var (
	modesRe = strings.Join(blockModes, "|")
	aesRe   = regexp.MustCompile(`^aes-(128|192|256)-(` + modesRe + `|gcm)$`)
	desRe   = regexp.MustCompile(`^des-(` + modesRe + `)$`)
	tdesRe  = regexp.MustCompile(`^3des-(112|168)-(` + modesRe + `)$`)
	varRe   = regexp.MustCompile(`^(blowfish|rc2)-([1-9][0-9]*)-(` + modesRe + `)$`)
	rc4Re   = regexp.MustCompile(`^(rc4)-([1-9][0-9]*)()$`)
)

func parse(name string) (spec, error) {
	if name == "chacha20-poly1305" {
		return newSpec(name, name, 256, ""), nil
	}
	if m := aesRe.FindStringSubmatch(name); m != nil {
		bits, _ := strconv.Atoi(m[1])
		return newSpec(name, "aes", bits, m[2]), nil
	}
	if m := desRe.FindStringSubmatch(name); m != nil {
		return newSpec(name, "des", 56, m[1]), nil
	}
	if m := tdesRe.FindStringSubmatch(name); m != nil {
		bits, _ := strconv.Atoi(m[1])
		return newSpec(name, "3des", bits, m[2]), nil
	}
	m := varRe.FindStringSubmatch(name)
	if m == nil {
		m = rc4Re.FindStringSubmatch(name)
	}
	if m != nil {
		bits, err := strconv.Atoi(m[2])
		r := probe[m[1]].Range
		if err == nil && len(r) == 2 && bits >= r[0] && bits <= r[1] && bits%8 == 0 {
			return newSpec(name, m[1], bits, m[3]), nil
		}
	}
	return spec{}, errUnsupported
}

func candidateNames() []string {
	var out []string
	for _, b := range []int{128, 192, 256} {
		for _, m := range append(slices.Clone(blockModes), "gcm") {
			out = append(out, fmt.Sprintf("aes-%d-%s", b, m))
		}
	}
	for _, m := range blockModes {
		out = append(out, "des-"+m)
	}
	for _, b := range []int{112, 168} {
		for _, m := range blockModes {
			out = append(out, fmt.Sprintf("3des-%d-%s", b, m))
		}
	}
	for _, fam := range []string{"blowfish", "rc2"} {
		for _, b := range probe[fam].Bits {
			for _, m := range blockModes {
				out = append(out, fmt.Sprintf("%s-%d-%s", fam, b, m))
			}
		}
	}
	for _, b := range probe["rc4"].Bits {
		out = append(out, fmt.Sprintf("rc4-%d", b))
	}
	return append(out, "chacha20-poly1305")
}

// ------------------------------------------------------------------ the provider
//
// A call does what an application does per message: create the cipher from the key
// (key schedule), set up the mode with the IV, process, finish. With a reused context
// the key schedule is done once and each call only sets up the mode.

type call func(data []byte) ([]byte, error)

// newBlock runs the key schedule of a block cipher.
func newBlock(s spec, key []byte) (cipher.Block, error) {
	switch s.family {
	case "aes":
		return aes.NewCipher(key)
	case "des":
		return des.NewCipher(key)
	case "3des":
		if len(key) == 16 { // two-key 3DES is K1 K2 K1; the package takes three keys
			key = append(slices.Clone(key), key[:8]...)
		}
		return des.NewTripleDESCipher(key)
	case "blowfish":
		return blowfish.NewCipher(key)
	}
	return nil, errUnsupported
}

// keyed is a cipher whose key schedule is done: it encrypts or decrypts one message
// with an IV or nonce.
type keyed func(iv, ad, data []byte, encrypt bool) ([]byte, error)

func schedule(s spec, key []byte, pad bool) (keyed, error) {
	if s.family == "rc4" {
		// An RC4 state is used up by one message, so its "key schedule" is per message.
		return func(_, _, data []byte, _ bool) ([]byte, error) {
			c, err := rc4.NewCipher(key)
			if err != nil {
				return nil, err
			}
			out := make([]byte, len(data))
			c.XORKeyStream(out, data)
			return out, nil
		}, nil
	}
	if s.aead {
		var a cipher.AEAD
		var err error
		if s.family == "chacha20-poly1305" {
			a, err = chacha20poly1305.New(key)
		} else {
			var b cipher.Block
			if b, err = aes.NewCipher(key); err == nil {
				a, err = cipher.NewGCM(b)
			}
		}
		if err != nil {
			return nil, err
		}
		return func(iv, ad, data []byte, encrypt bool) ([]byte, error) {
			if encrypt {
				return a.Seal(make([]byte, 0, len(data)+a.Overhead()), iv, data, ad), nil
			}
			out, err := a.Open(make([]byte, 0, len(data)), iv, data, ad)
			if err != nil {
				return nil, errAuth
			}
			return out, nil
		}, nil
	}
	if s.mode == "cfb8" || s.mode == "cfb1" {
		return nil, errUnsupported // crypto/cipher has full-block CFB only
	}
	b, err := newBlock(s, key)
	if err != nil {
		return nil, err
	}
	return func(iv, _, data []byte, encrypt bool) ([]byte, error) {
		return blockMode(s, b, iv, data, encrypt, pad)
	}, nil
}

// blockMode runs one message through a mode of operation. ECB and PKCS#7 are written
// here because Go's standard library leaves them out on purpose (a Go application writes
// the same few lines).
func blockMode(s spec, b cipher.Block, iv, data []byte, encrypt, pad bool) ([]byte, error) {
	bs := b.BlockSize()
	if s.pads {
		in := data
		if encrypt && pad {
			n := bs - len(data)%bs
			in = make([]byte, len(data)+n)
			copy(in, data)
			for i := len(data); i < len(in); i++ {
				in[i] = byte(n)
			}
		}
		if len(in)%bs != 0 {
			return nil, fmt.Errorf("input is not whole %d-byte blocks", bs)
		}
		out := make([]byte, len(in))
		switch {
		case s.mode == "cbc" && encrypt:
			cipher.NewCBCEncrypter(b, iv).CryptBlocks(out, in)
		case s.mode == "cbc":
			cipher.NewCBCDecrypter(b, iv).CryptBlocks(out, in)
		default:
			for i := 0; i < len(in); i += bs {
				if encrypt {
					b.Encrypt(out[i:i+bs], in[i:i+bs])
				} else {
					b.Decrypt(out[i:i+bs], in[i:i+bs])
				}
			}
		}
		if !encrypt && pad {
			n := 0
			if len(out) > 0 {
				n = int(out[len(out)-1])
			}
			if n == 0 || n > bs || n > len(out) {
				return nil, errors.New("bad padding")
			}
			for _, p := range out[len(out)-n:] {
				if int(p) != n {
					return nil, errors.New("bad padding")
				}
			}
			out = out[:len(out)-n]
		}
		return out, nil
	}
	var st cipher.Stream
	switch s.mode {
	case "cfb":
		if encrypt {
			st = cipher.NewCFBEncrypter(b, iv) //nolint:staticcheck // the catalogue measures CFB
		} else {
			st = cipher.NewCFBDecrypter(b, iv) //nolint:staticcheck
		}
	case "ofb":
		st = cipher.NewOFB(b, iv) //nolint:staticcheck // the catalogue measures OFB
	case "ctr":
		st = cipher.NewCTR(b, iv)
	default:
		return nil, errUnsupported
	}
	out := make([]byte, len(data))
	st.XORKeyStream(out, data)
	return out, nil
}

// perMessage is the application's call: key schedule, mode, process, finish.
func perMessage(s spec, key, iv, ad []byte, pad, encrypt bool) (call, error) {
	if _, err := schedule(s, key, pad); err != nil { // refuse now what Go lacks
		return nil, err
	}
	return func(data []byte) ([]byte, error) {
		k, err := schedule(s, key, pad)
		if err != nil {
			return nil, err
		}
		return k(iv, ad, data, encrypt)
	}, nil
}

func serves(name string) bool {
	s, err := parse(name)
	if err != nil {
		return false
	}
	key := make([]byte, s.keyLen)
	for i := range key {
		key[i] = byte(i%251 + 1)
	}
	iv := make([]byte, s.ivLen)
	msg := []byte("0123456789abcdef")
	enc, err := perMessage(s, key, iv, nil, s.pads, true)
	if err != nil {
		return false
	}
	ct, err := enc(msg)
	if err != nil {
		return false
	}
	dec, _ := perMessage(s, key, iv, nil, s.pads, false)
	pt, err := dec(ct)
	return err == nil && string(pt) == string(msg)
}

func xcryptoVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == "golang.org/x/crypto" {
				return d.Version
			}
		}
	}
	return "unknown"
}

var (
	ready     time.Time
	listed    = map[string][]string{} // probe set (as JSON) -> the algorithms listed
	probingNs int64                   // the first probing, counted into the start-up
)

// setProbe takes the probe set of an `info` request (absent: the one before stays).
func setProbe(r request) error {
	raw, ok := r["probe"]
	if !ok || string(raw) == "null" {
		return nil
	}
	var p probeSet
	if err := json.Unmarshal(raw, &p); err != nil || p == nil {
		return errors.New(`"probe" must be {"<algorithm>": {"bits": [...], "range": [lo, hi]}, ...}`)
	}
	for fam, v := range p {
		if v.Bits == nil || len(v.Range) != 2 {
			return fmt.Errorf(`"probe".%q must be {"bits": [...], "range": [lo, hi]}`, fam)
		}
	}
	probe = p
	return nil
}

// algorithms lists the algorithms served at the current probe set.
func algorithms() []string {
	key, _ := json.Marshal(probe)
	if have, ok := listed[string(key)]; ok {
		return have
	}
	t0 := time.Now()
	have := []string{}
	for _, n := range candidateNames() {
		if serves(n) {
			have = append(have, n)
		}
	}
	listed[string(key)] = have
	if len(listed) == 1 {
		probingNs = time.Since(t0).Nanoseconds()
	}
	return have
}

// ------------------------------------------------------------------ requests

type request map[string]json.RawMessage

var cipherFields = []string{"id", "alg", "op", "key", "iv", "nonce", "ad", "padding", "effective_bits", "provider"}
var allowed = map[string][]string{
	"encrypt": append(slices.Clone(cipherFields), "pt"),
	"decrypt": append(slices.Clone(cipherFields), "ct", "tag"),
	"time":    append(slices.Clone(cipherFields), "direction", "input", "reps", "warmup", "reuse", "expect"),
	"info":    {"id", "op", "probe"},
}

func (r request) has(name string) bool { _, ok := r[name]; return ok }

func (r request) str(name string) (string, bool) {
	var v string
	raw, ok := r[name]
	if !ok || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

func (r request) hex(name string, required bool) ([]byte, error) {
	if !r.has(name) {
		if required {
			return nil, fmt.Errorf("missing field %q", name)
		}
		return []byte{}, nil
	}
	v, ok := r.str(name)
	b, err := hex.DecodeString(v)
	if !ok || err != nil {
		return nil, fmt.Errorf("field %q is not hex", name)
	}
	return b, nil
}

type prepared struct {
	s           spec
	key, iv, ad []byte
	pad         bool
}

func prepare(r request) (prepared, error) {
	var p prepared
	alg, _ := r.str("alg")
	s, err := parse(alg)
	if err != nil {
		return p, err
	}
	if prov, ok := r.str("provider"); r.has("provider") && (!ok || prov != "go") {
		return p, errUnsupported
	}
	if p.key, err = r.hex("key", true); err != nil {
		return p, err
	}
	if r.has("iv") && r.has("nonce") {
		return p, errors.New(`give "iv" or "nonce", not both`)
	}
	ivName := "nonce"
	if r.has("iv") {
		ivName = "iv"
	}
	if p.iv, err = r.hex(ivName, false); err != nil {
		return p, err
	}
	if p.ad, err = r.hex("ad", false); err != nil {
		return p, err
	}
	if len(p.key) != s.keyLen {
		return p, fmt.Errorf("key must be %d bytes, got %d", s.keyLen, len(p.key))
	}
	if len(p.iv) != s.ivLen {
		return p, fmt.Errorf("iv/nonce must be %d bytes, got %d", s.ivLen, len(p.iv))
	}
	if len(p.ad) > 0 && !s.aead {
		return p, fmt.Errorf("%s takes no associated data", s.name)
	}
	padding := "pkcs7"
	if r.has("padding") {
		padding, _ = r.str("padding")
	}
	if padding != "pkcs7" && padding != "pkcs5" && padding != "none" {
		return p, fmt.Errorf("padding %q is not pkcs7 or none", padding)
	}
	if r.has("effective_bits") {
		return p, errors.New("effective_bits is for rc2 only")
	}
	p.s, p.pad = s, s.pads && padding != "none"
	return p, nil
}

func serveVector(r request, op string) (map[string]any, error) {
	p, err := prepare(r)
	if err != nil {
		return nil, err
	}
	if op == "encrypt" {
		pt, err := r.hex("pt", true)
		if err != nil {
			return nil, err
		}
		enc, err := perMessage(p.s, p.key, p.iv, p.ad, p.pad, true)
		if err != nil {
			return nil, err
		}
		out, err := enc(pt)
		if err != nil {
			return nil, err
		}
		if p.s.aead {
			n := len(out) - 16
			return map[string]any{"ct": hex.EncodeToString(out[:n]), "tag": hex.EncodeToString(out[n:])}, nil
		}
		return map[string]any{"ct": hex.EncodeToString(out)}, nil
	}
	ct, err := r.hex("ct", true)
	if err != nil {
		return nil, err
	}
	if p.s.aead {
		tag, err := r.hex("tag", true)
		if err != nil {
			return nil, err
		}
		if len(tag) != 16 {
			return nil, fmt.Errorf("tag must be 16 bytes, got %d", len(tag))
		}
		ct = append(ct, tag...)
	} else if r.has("tag") {
		return nil, fmt.Errorf("%s has no tag", p.s.name)
	}
	dec, err := perMessage(p.s, p.key, p.iv, p.ad, p.pad, false)
	if err != nil {
		return nil, err
	}
	out, err := dec(ct)
	if err != nil {
		return nil, err
	}
	return map[string]any{"pt": hex.EncodeToString(out)}, nil
}

func median(xs []int64) float64 {
	s := slices.Clone(xs)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return float64(s[n/2-1]+s[n/2]) / 2
}

// driftOf is the median of the last quarter over the quarter before it, minus one.
func driftOf(samples []int64) float64 {
	n := len(samples)
	if n < 8 {
		return 0
	}
	q := n / 4
	return median(samples[n-q:])/math.Max(median(samples[n-2*q:n-q]), 1) - 1
}

var sink int // every timed output feeds it, so no call can be optimised away

func serveTime(r request) (map[string]any, error) {
	p, err := prepare(r)
	if err != nil {
		return nil, err
	}
	direction, _ := r.str("direction")
	if direction != "encrypt" && direction != "decrypt" {
		return nil, errors.New(`direction must be "encrypt" or "decrypt"`)
	}
	var reps int
	if json.Unmarshal(r["reps"], &reps) != nil || reps < 1 || reps > 1_000_000 {
		return nil, errors.New("reps must be 1 to 1000000")
	}
	warmup, steadyMode := 0, false
	if r.has("warmup") {
		if w, ok := r.str("warmup"); ok && w == "steady" {
			steadyMode = true
		} else if json.Unmarshal(r["warmup"], &warmup) != nil || warmup < 0 {
			return nil, errors.New(`warmup must be a count or "steady"`)
		}
	}
	reuse := false
	if r.has("reuse") && json.Unmarshal(r["reuse"], &reuse) != nil {
		return nil, errors.New("reuse must be true or false")
	}
	input, _ := r.str("input")
	plain, err := os.ReadFile(input)
	if err != nil {
		return nil, err
	}
	encrypt, err := perMessage(p.s, p.key, p.iv, p.ad, p.pad, true)
	if err != nil {
		return nil, err
	}
	data, expect := plain, ""
	if v, ok := r.str("expect"); ok {
		expect = strings.ToLower(v)
	}
	if direction == "decrypt" {
		if data, err = encrypt(plain); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(plain)
		expect = hex.EncodeToString(sum[:])
	}
	fn, err := perMessage(p.s, p.key, p.iv, p.ad, p.pad, direction == "encrypt")
	if err != nil {
		return nil, err
	}
	if reuse {
		k, err := schedule(p.s, p.key, p.pad)
		if err != nil {
			return nil, err
		}
		enc := direction == "encrypt"
		fn = func(d []byte) ([]byte, error) { return k(p.iv, p.ad, d, enc) }
	}

	t := time.Now()
	out, err := fn(data)
	firstCall := time.Since(t).Nanoseconds()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(out)
	verified := hex.EncodeToString(sum[:])
	if expect != "" && verified != expect {
		return nil, fmt.Errorf("digest mismatch: got %s, expected %s; nothing timed", verified, expect)
	}

	warmStart, warmCalls, steadyWarmup := time.Now(), 0, true
	if steadyMode {
		const batch = 10
		previous := -1.0
		for {
			times := make([]int64, batch)
			for i := range times {
				t = time.Now()
				o, _ := fn(data)
				times[i] = time.Since(t).Nanoseconds()
				sink ^= len(o)
			}
			warmCalls += batch
			m := median(times)
			if previous > 0 && warmCalls >= 3*batch && math.Abs(m/previous-1) <= 0.02 {
				break
			}
			if time.Since(warmStart) > 30*time.Second {
				steadyWarmup = false
				break
			}
			previous = m
		}
	} else {
		for i := 0; i < warmup; i++ {
			o, _ := fn(data)
			sink ^= len(o)
		}
		warmCalls = warmup
	}
	warmupNs := time.Since(warmStart).Nanoseconds()

	samples := make([]int64, reps)
	for i := range samples {
		out = nil // the previous output is released before the clock starts
		t = time.Now()
		out, _ = fn(data)
		samples[i] = time.Since(t).Nanoseconds()
		sink ^= len(out)
	}
	sum = sha256.Sum256(out)
	// The last timed output must be the verified one: a context that breaks after its
	// first use is not timed (PROTOCOL.md, `time`).
	if last := hex.EncodeToString(sum[:]); last != verified {
		return nil, fmt.Errorf("digest mismatch after timing: the last timed output's SHA-256 is %s, expected %s; figure refused", last, verified)
	}
	drift := driftOf(samples)
	res := map[string]any{
		"samples_ns": samples, "digest": hex.EncodeToString(sum[:]), "out_len": len(out),
		"first_call_ns": firstCall, "warmup_calls": warmCalls, "warmup_ns": warmupNs,
		"steady_warmup": steadyWarmup, "steady": math.Abs(drift) <= 0.05, "drift": drift,
		"provider": "go", "library_version": runtime.Version() + " + x/crypto " + xcryptoVersion(),
	}
	for k, v := range runFacts() {
		res[k] = v
	}
	return res, nil
}

func runFacts() map[string]any {
	return map[string]any{"startup_ns": ready.Sub(started).Nanoseconds() + probingNs, "clock": "time.Now (monotonic)",
		"runtime": "go", "runtime_version": runtime.Version()}
}

func info(r request) (map[string]any, error) {
	if err := setProbe(r); err != nil {
		return nil, err
	}
	have := algorithms()
	f := runFacts()
	return map[string]any{"runtime": "go", "version": f["runtime_version"], "startup_ns": f["startup_ns"], "clock": f["clock"],
		"providers": []any{map[string]any{"name": "go", "library": "crypto/* + golang.org/x/crypto",
			"version": runtime.Version() + " + x/crypto " + xcryptoVersion(), "algorithms": have}}}, nil
}

func answer(r request) (map[string]any, error) {
	op, _ := r.str("op")
	if op == "hash" {
		return nil, errUnsupported
	}
	fields, ok := allowed[op]
	if !ok {
		return nil, fmt.Errorf("op %q is not one of encrypt, decrypt, time, info", op)
	}
	var unknown []string
	for k := range r {
		if !slices.Contains(fields, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("field(s) %s not used by op %q", strings.Join(unknown, ", "), op)
	}
	switch op {
	case "info":
		return info(r)
	case "time":
		return serveTime(r)
	}
	return serveVector(r, op)
}

func main() {
	ready = time.Now()

	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	malformed := 0
	for {
		line, err := in.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			var reply map[string]any
			var r request
			if jerr := json.Unmarshal([]byte(line), &r); jerr != nil || r == nil {
				malformed++
				reply = map[string]any{"error": fmt.Sprintf("not JSON: %v", jerr)}
			} else {
				fields, aerr := answer(r)
				reply = map[string]any{}
				if id, ok := r["id"]; ok {
					reply["id"] = id
				}
				for k, v := range fields {
					reply[k] = v
				}
				if aerr != nil {
					reply["error"] = aerr.Error()
				}
			}
			b, _ := json.Marshal(reply)
			out.Write(b)
			out.WriteString("\n")
			out.Flush()
		}
		if err != nil {
			break
		}
	}
	if malformed > 0 {
		os.Exit(1)
	}
}
