<?php
// cipherlab's PHP runner: the openssl extension (Debian's php-cli, the system OpenSSL with
// its legacy provider loaded by `run` for DES, Blowfish, RC2 and RC4) behind the protocol
// of platforms/PROTOCOL.md (JSON lines on stdin and stdout: the vector operations of
// `cipherlab vectors`, `info` and `time`).

declare(strict_types=1);

$STARTED = hrtime(true); // first line of code: start-up is measured from here

final class Unsupported extends Exception {}
final class AuthFailed extends Exception {}

// ------------------------------------------------------------------ catalogue names

const BLOCK_MODES = ['ecb', 'cbc', 'cfb', 'cfb8', 'cfb1', 'ofb', 'ctr'];
// The probe set of the last `info` request (PROTOCOL.md, "info"): per algorithm with many
// key sizes, the sizes to list it at ('bits') and the sizes its names may have ('range').
// Until an `info` brings one, such names are unsupported.
$PROBE = [];

/** The parsed catalogue name: family, key bits, mode and the sizes that follow. */
function parse_name(string $name): array
{
    $modes = implode('|', BLOCK_MODES);
    $spec = function (string $family, int $bits, ?string $mode) use ($name): array {
        $block = $family === 'aes' ? 16 : 8;
        $aead = $mode === 'gcm' || $family === 'chacha20-poly1305';
        $keyLen = $family === 'des' ? 8 : ($family === '3des' ? intdiv($bits, 7) : intdiv($bits, 8));
        $ivLen = $aead ? 12 : (($mode === null || $mode === 'ecb') ? 0 : $block);
        return ['name' => $name, 'family' => $family, 'bits' => $bits, 'mode' => $mode, 'block' => $block,
            'aead' => $aead, 'key_len' => $keyLen, 'iv_len' => $ivLen, 'pads' => $mode === 'ecb' || $mode === 'cbc'];
    };
    if ($name === 'chacha20-poly1305') return $spec($name, 256, null);
    if (preg_match("/^aes-(128|192|256)-($modes|gcm)$/", $name, $m)) return $spec('aes', (int)$m[1], $m[2]);
    if (preg_match("/^des-($modes)$/", $name, $m)) return $spec('des', 56, $m[1]);
    if (preg_match("/^3des-(112|168)-($modes)$/", $name, $m)) return $spec('3des', (int)$m[1], $m[2]);
    if (preg_match("/^(blowfish|rc2)-([1-9][0-9]*)-($modes)$/", $name, $m) || preg_match('/^(rc4)-([1-9][0-9]*)()$/', $name, $m)) {
        global $PROBE;
        [$lo, $hi] = $PROBE[$m[1]]['range'] ?? [1, 0];
        $bits = (int)$m[2];
        if ($bits >= $lo && $bits <= $hi && $bits % 8 === 0) return $spec($m[1], $bits, $m[3] === '' ? null : $m[3]);
    }
    throw new Unsupported();
}

function candidate_names(): array
{
    global $PROBE;
    $out = [];
    foreach ([128, 192, 256] as $b) foreach ([...BLOCK_MODES, 'gcm'] as $m) $out[] = "aes-$b-$m";
    foreach (BLOCK_MODES as $m) $out[] = "des-$m";
    foreach ([112, 168] as $b) foreach (BLOCK_MODES as $m) $out[] = "3des-$b-$m";
    foreach (['blowfish', 'rc2'] as $f) foreach ($PROBE[$f]['bits'] ?? [] as $b) foreach (BLOCK_MODES as $m) $out[] = "$f-$b-$m";
    foreach ($PROBE['rc4']['bits'] ?? [] as $b) $out[] = "rc4-$b";
    $out[] = 'chacha20-poly1305';
    return $out;
}

/** OpenSSL's name for a spec with the RC2 effective bits asked for; Unsupported if none. */
function openssl_name(array $spec, int $eff): string
{
    $mode = $spec['mode'];
    if ($spec['family'] === 'rc2') {
        // OpenSSL's RC2 uses 128 effective key bits, except its rc2-40-cbc and rc2-64-cbc.
        if ($eff === 128) return "rc2-$mode";
        if ($mode === 'cbc' && ($eff === 40 || $eff === 64) && $spec['bits'] === $eff) return "rc2-$eff-cbc";
        throw new Unsupported();
    }
    $name = match ($spec['family']) {
        'aes' => "aes-{$spec['bits']}-$mode",
        'des' => "des-$mode",
        '3des' => ($spec['bits'] === 168 ? 'des-ede3' : 'des-ede') . "-$mode",
        'blowfish' => "bf-$mode",
        'rc4' => 'rc4',
        'chacha20-poly1305' => 'chacha20-poly1305',
    };
    if (!in_array($name, openssl_get_cipher_methods(), true)) throw new Unsupported();
    return $name;
}

// ------------------------------------------------------------------ the provider
//
// `encryptor` and `decryptor` build, for one spec, key, IV and AD, a function of the
// message that does what an application does per message: one openssl_encrypt or
// openssl_decrypt call (which creates, initialises and finishes the cipher). Encryption
// returns ciphertext followed by the tag.

function cipher_options(array $spec, bool $pad): int
{
    // OPENSSL_DONT_ZERO_PAD_KEY: a short key for Blowfish, RC2 or RC4 sets the key length
    // instead of being zero-padded to the cipher's default (which would be another key).
    return OPENSSL_RAW_DATA | OPENSSL_DONT_ZERO_PAD_KEY | (($spec['pads'] && !$pad) ? OPENSSL_ZERO_PADDING : 0);
}

function encryptor(array $spec, string $key, string $iv, string $ad, bool $pad, int $eff): Closure
{
    $name = openssl_name($spec, $eff);
    $opts = cipher_options($spec, $pad);
    if ($spec['aead']) {
        return function (string $data) use ($name, $key, $opts, $iv, $ad): string {
            $tag = '';
            $ct = openssl_encrypt($data, $name, $key, $opts, $iv, $tag, $ad, 16);
            if ($ct === false) throw new RuntimeException(openssl_error());
            return $ct . $tag;
        };
    }
    return function (string $data) use ($name, $key, $opts, $iv): string {
        $ct = openssl_encrypt($data, $name, $key, $opts, $iv);
        if ($ct === false) throw new RuntimeException(openssl_error());
        return $ct;
    };
}

function decryptor(array $spec, string $key, string $iv, string $ad, bool $pad, int $eff): Closure
{
    $name = openssl_name($spec, $eff);
    $opts = cipher_options($spec, $pad);
    if ($spec['aead']) {
        return function (string $data) use ($name, $key, $opts, $iv, $ad): string {
            if (strlen($data) < 16) throw new RuntimeException('input shorter than the tag');
            $pt = openssl_decrypt(substr($data, 0, -16), $name, $key, $opts, $iv, substr($data, -16), $ad);
            if ($pt === false) throw new AuthFailed();
            return $pt;
        };
    }
    return function (string $data) use ($name, $key, $opts, $iv): string {
        $pt = openssl_decrypt($data, $name, $key, $opts, $iv);
        if ($pt === false) throw new RuntimeException(openssl_error());
        return $pt;
    };
}

function openssl_error(): string
{
    $all = [];
    while (($e = openssl_error_string()) !== false) $all[] = $e;
    return $all ? implode('; ', $all) : 'OpenSSL refused the operation';
}

function probe(string $name): bool
{
    try {
        $spec = parse_name($name);
        $key = '';
        for ($i = 0; $i < $spec['key_len']; $i++) $key .= chr($i % 251 + 1);
        $iv = str_repeat("\0", $spec['iv_len']);
        $eff = min($spec['bits'], 1024);
        $ct = @encryptor($spec, $key, $iv, '', $spec['pads'], $eff)('0123456789abcdef');
        return @decryptor($spec, $key, $iv, '', $spec['pads'], $eff)($ct) === '0123456789abcdef';
    } catch (Throwable) {
        openssl_error();
        return false;
    }
}

const PROVIDER = ['name' => 'php-openssl', 'library' => 'OpenSSL (php openssl extension)'];
$READY = hrtime(true);
$LISTED = []; // probe set (as JSON) => the algorithms listed
$PROBING_NS = 0; // the first probing, counted into the start-up

/** Takes the probe set of an `info` request (absent: the one before stays). */
function set_probe(mixed $p): void
{
    global $PROBE;
    if ($p === null) return;
    if (!is_array($p) || array_is_list($p) && $p !== []) throw new RuntimeException('"probe" must be an object');
    $ints = fn($a) => is_array($a) && array_is_list($a) && $a === array_filter($a, fn($b) => is_int($b) && $b > 0);
    $next = [];
    foreach ($p as $fam => $v) {
        if (!is_array($v) || !$ints($v['bits'] ?? null) || !$ints($v['range'] ?? null) || count($v['range']) !== 2) {
            throw new RuntimeException("\"probe\".\"$fam\" must be {\"bits\": [...], \"range\": [lo, hi]}");
        }
        $next[$fam] = ['bits' => $v['bits'], 'range' => $v['range']];
    }
    $PROBE = $next;
}

function algorithms(): array
{
    global $PROBE, $LISTED, $PROBING_NS;
    $key = json_encode($PROBE);
    if (!isset($LISTED[$key])) {
        $t0 = hrtime(true);
        $LISTED[$key] = array_values(array_filter(candidate_names(), 'probe'));
        if (count($LISTED) === 1) $PROBING_NS = hrtime(true) - $t0;
    }
    return $LISTED[$key];
}

// ------------------------------------------------------------------ requests

const CIPHER_FIELDS = ['id', 'alg', 'op', 'key', 'iv', 'nonce', 'ad', 'padding', 'effective_bits', 'provider'];
const ALLOWED = [
    'encrypt' => [...CIPHER_FIELDS, 'pt'],
    'decrypt' => [...CIPHER_FIELDS, 'ct', 'tag'],
    'time' => [...CIPHER_FIELDS, 'direction', 'input', 'reps', 'warmup', 'reuse', 'expect'],
    'info' => ['id', 'op', 'probe'],
];

function hex_field(array $req, string $name, bool $required = true): string
{
    if (!array_key_exists($name, $req)) {
        if ($required) throw new RuntimeException("missing field \"$name\"");
        return '';
    }
    $v = $req[$name];
    if (!is_string($v) || !preg_match('/^([0-9a-fA-F]{2})*$/', $v)) throw new RuntimeException("field \"$name\" is not hex");
    return (string)hex2bin($v);
}

function prepare(array $req): array
{
    $spec = parse_name((string)($req['alg'] ?? ''));
    if (isset($req['provider']) && $req['provider'] !== PROVIDER['name']) throw new Unsupported();
    $key = hex_field($req, 'key');
    if (array_key_exists('iv', $req) && array_key_exists('nonce', $req)) throw new RuntimeException('give "iv" or "nonce", not both');
    $iv = hex_field($req, array_key_exists('iv', $req) ? 'iv' : 'nonce', false);
    $ad = hex_field($req, 'ad', false);
    if (strlen($key) !== $spec['key_len']) throw new RuntimeException("key must be {$spec['key_len']} bytes, got " . strlen($key));
    if (strlen($iv) !== $spec['iv_len']) throw new RuntimeException("iv/nonce must be {$spec['iv_len']} bytes, got " . strlen($iv));
    if ($ad !== '' && !$spec['aead']) throw new RuntimeException("{$spec['name']} takes no associated data");
    $padding = $req['padding'] ?? 'pkcs7';
    if (!in_array($padding, ['pkcs7', 'pkcs5', 'none'], true)) throw new RuntimeException("padding \"$padding\" is not pkcs7 or none");
    $pad = $spec['pads'] && $padding !== 'none';
    $eff = $req['effective_bits'] ?? min($spec['bits'], 1024);
    if ($eff !== min($spec['bits'], 1024) && $spec['family'] !== 'rc2') throw new RuntimeException('effective_bits is for rc2 only');
    return [$spec, $key, $iv, $ad, $pad, (int)$eff];
}

function check_length(array $spec, bool $pad, int $n): void
{
    if ($spec['pads'] && !$pad && $n % $spec['block']) throw new RuntimeException("without padding the input must be whole {$spec['block']}-byte blocks");
}

function serve_vector(array $req): array
{
    [$spec, $key, $iv, $ad, $pad, $eff] = prepare($req);
    if ($req['op'] === 'encrypt') {
        $pt = hex_field($req, 'pt');
        check_length($spec, $pad, strlen($pt));
        $out = encryptor($spec, $key, $iv, $ad, $pad, $eff)($pt);
        if ($spec['aead']) return ['ct' => bin2hex(substr($out, 0, -16)), 'tag' => bin2hex(substr($out, -16))];
        return ['ct' => bin2hex($out)];
    }
    $ct = hex_field($req, 'ct');
    if ($spec['aead']) {
        $tag = hex_field($req, 'tag');
        if (strlen($tag) !== 16) throw new RuntimeException('tag must be 16 bytes, got ' . strlen($tag));
        $ct .= $tag;
    } elseif (array_key_exists('tag', $req)) {
        throw new RuntimeException("{$spec['name']} has no tag");
    }
    check_length($spec, $pad, strlen($ct));
    return ['pt' => bin2hex(decryptor($spec, $key, $iv, $ad, $pad, $eff)($ct))];
}

function median(array $xs): float
{
    sort($xs);
    $n = count($xs);
    return $n % 2 ? (float)$xs[intdiv($n - 1, 2)] : ($xs[$n / 2 - 1] + $xs[$n / 2]) / 2;
}

/** Median of the last quarter over the quarter before it, minus one. */
function drift_of(array $samples): float
{
    $n = count($samples);
    if ($n < 8) return 0.0;
    $q = intdiv($n, 4);
    return median(array_slice($samples, $n - $q)) / max(median(array_slice($samples, $n - 2 * $q, $q)), 1) - 1;
}

function serve_time(array $req): array
{
    [$spec, $key, $iv, $ad, $pad, $eff] = prepare($req);
    $direction = $req['direction'] ?? null;
    if ($direction !== 'encrypt' && $direction !== 'decrypt') throw new RuntimeException('direction must be "encrypt" or "decrypt"');
    $reps = $req['reps'] ?? null;
    if (!is_int($reps) || $reps < 1 || $reps > 1000000) throw new RuntimeException('reps must be 1 to 1000000');
    $warmup = $req['warmup'] ?? 0;
    if ($warmup !== 'steady' && !(is_int($warmup) && $warmup >= 0)) throw new RuntimeException('warmup must be a count or "steady"');
    if (!empty($req['reuse'])) throw new RuntimeException('reuse unsupported'); // openssl_encrypt is one call per message
    $plain = @file_get_contents((string)($req['input'] ?? ''));
    if ($plain === false) throw new RuntimeException("cannot read input {$req['input']}");
    check_length($spec, $pad, strlen($plain));
    $encrypt = encryptor($spec, $key, $iv, $ad, $pad, $eff);
    if ($direction === 'encrypt') {
        [$data, $call, $expect] = [$plain, $encrypt, $req['expect'] ?? null];
    } else {
        [$data, $call, $expect] = [$encrypt($plain), decryptor($spec, $key, $iv, $ad, $pad, $eff), hash('sha256', $plain)];
    }
    $t = hrtime(true);
    $out = $call($data);
    $firstCall = hrtime(true) - $t;
    $got = hash('sha256', $out);
    if ($expect !== null && $got !== strtolower((string)$expect)) {
        throw new RuntimeException("digest mismatch: got $got, expected $expect; nothing timed");
    }

    $warmStart = hrtime(true);
    $warmCalls = 0;
    $steadyWarmup = true;
    if ($warmup === 'steady') {
        $batch = 10;
        $previous = null;
        for (;;) {
            $times = [];
            for ($i = 0; $i < $batch; $i++) {
                $t = hrtime(true);
                $call($data);
                $times[] = hrtime(true) - $t;
            }
            $warmCalls += $batch;
            $m = median($times);
            if ($previous !== null && $warmCalls >= 3 * $batch && abs($m / max($previous, 1) - 1) <= 0.02) break;
            if (hrtime(true) - $warmStart > 30_000_000_000) {
                $steadyWarmup = false;
                break;
            }
            $previous = $m;
        }
    } else {
        for ($i = 0; $i < $warmup; $i++) $call($data);
        $warmCalls = $warmup;
    }
    $warmupNs = hrtime(true) - $warmStart;

    $samples = array_fill(0, $reps, 0);
    for ($i = 0; $i < $reps; $i++) {
        $out = null; // the previous output is released before the clock starts
        $t = hrtime(true);
        $out = $call($data);
        $samples[$i] = hrtime(true) - $t;
    }
    // The last timed output must be the verified one: a context that breaks after its
    // first use is not timed (PROTOCOL.md, `time`).
    $last = hash('sha256', $out);
    if ($last !== $got) {
        throw new RuntimeException("digest mismatch after timing: the last timed output's SHA-256 is $last, expected $got; figure refused");
    }
    $drift = drift_of($samples);
    return ['samples_ns' => $samples, 'digest' => $last, 'out_len' => strlen($out),
        'first_call_ns' => $firstCall, 'warmup_calls' => $warmCalls, 'warmup_ns' => $warmupNs,
        'steady_warmup' => $steadyWarmup, 'steady' => abs($drift) <= 0.05, 'drift' => $drift,
        ...run_facts(), 'provider' => PROVIDER['name'], 'library_version' => OPENSSL_VERSION_TEXT];
}

function run_facts(): array
{
    global $STARTED, $READY, $PROBING_NS;
    return ['startup_ns' => $READY - $STARTED + $PROBING_NS, 'clock' => 'hrtime', 'runtime' => 'php', 'runtime_version' => PHP_VERSION];
}

function info(array $req): array
{
    set_probe($req['probe'] ?? null);
    $algorithms = algorithms();
    $f = run_facts();
    return ['runtime' => 'php', 'version' => $f['runtime_version'], 'startup_ns' => $f['startup_ns'], 'clock' => $f['clock'],
        'providers' => [[...PROVIDER, 'version' => OPENSSL_VERSION_TEXT, 'algorithms' => $algorithms]]];
}

function answer(array $req): array
{
    $op = $req['op'] ?? null;
    if ($op === 'hash') throw new Unsupported();
    if (!is_string($op) || !isset(ALLOWED[$op])) throw new RuntimeException("op \"$op\" is not one of encrypt, decrypt, time, info");
    $unknown = array_diff(array_keys($req), ALLOWED[$op]);
    sort($unknown);
    if ($unknown) throw new RuntimeException('field(s) ' . implode(', ', $unknown) . " not used by op \"$op\"");
    return match ($op) {
        'info' => info($req),
        'time' => serve_time($req),
        default => serve_vector($req),
    };
}

$malformed = 0;
while (($line = fgets(STDIN)) !== false) {
    if (trim($line) === '') continue;
    $req = json_decode($line, true);
    if (!is_array($req) || array_is_list($req) && $req !== []) {
        $malformed++;
        echo json_encode(['error' => 'not JSON: ' . (json_last_error() ? json_last_error_msg() : 'not a JSON object')]), "\n";
        continue;
    }
    $reply = array_key_exists('id', $req) ? ['id' => $req['id']] : [];
    try {
        $reply += answer($req);
    } catch (Unsupported) {
        $reply['error'] = 'unsupported';
    } catch (AuthFailed) {
        openssl_error();
        $reply['error'] = 'authentication failed';
    } catch (Throwable $e) {
        openssl_error();
        $reply['error'] = $e->getMessage();
    }
    echo json_encode($reply, JSON_UNESCAPED_SLASHES), "\n";
    fflush(STDOUT);
}
exit($malformed ? 1 : 0);
