<?php
// The accuracy check's reference for the PHP runner: the runner's per-message call
// (one openssl_encrypt) timed by a plain hrtime loop around each call (the median call).
//   php -n bench.php KEY IV NONCE CBC_INPUT GCM_INPUT   (with the runner's OPENSSL_CONF)
[$key, $iv, $nonce] = array_map('hex2bin', array_slice($argv, 1, 3));
$cbc = file_get_contents($argv[4]);
$gcm = file_get_contents($argv[5]);
$cases = [
    'aes-128-cbc' => [$cbc, fn($d) => openssl_encrypt($d, 'aes-128-cbc', $key, OPENSSL_RAW_DATA, $iv), 200],
    'aes-128-gcm' => [$gcm, function ($d) use ($key, $nonce) { $tag = ''; return openssl_encrypt($d, 'aes-128-gcm', $key, OPENSSL_RAW_DATA, $nonce, $tag, '', 16) . $tag; }, 5000],
];
foreach ($cases as $name => [$data, $call, $n]) {
    for ($i = 0; $i < $n; $i++) $call($data);
    $times = [];
    for ($i = 0; $i < $n; $i++) {
        $t = hrtime(true);
        $call($data);
        $times[] = hrtime(true) - $t;
    }
    sort($times);
    echo json_encode(['case' => $name, 'tool' => 'hrtime loop (per call)', 'median_ns' => $times[intdiv($n, 2)]]), "\n";
}
