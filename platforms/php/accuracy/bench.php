<?php
// The accuracy check's reference for the PHP runner: the runner's per-message call
// (one openssl_encrypt) timed by a plain hrtime loop (batches, the median batch mean).
//   php -n bench.php KEY IV NONCE CBC_INPUT GCM_INPUT   (with the runner's OPENSSL_CONF)
[$key, $iv, $nonce] = array_map('hex2bin', array_slice($argv, 1, 3));
$cbc = file_get_contents($argv[4]);
$gcm = file_get_contents($argv[5]);
$cases = [
    'aes-128-cbc' => [$cbc, fn($d) => openssl_encrypt($d, 'aes-128-cbc', $key, OPENSSL_RAW_DATA, $iv), 20],
    'aes-128-gcm' => [$gcm, function ($d) use ($key, $nonce) { $tag = ''; return openssl_encrypt($d, 'aes-128-gcm', $key, OPENSSL_RAW_DATA, $nonce, $tag, '', 16) . $tag; }, 500],
];
foreach ($cases as $name => [$data, $call, $batch]) {
    for ($i = 0; $i < 10 * $batch; $i++) $call($data);
    $means = [];
    for ($r = 0; $r < 30; $r++) {
        $t = hrtime(true);
        for ($i = 0; $i < $batch; $i++) $call($data);
        $means[] = (hrtime(true) - $t) / $batch;
    }
    sort($means);
    echo json_encode(['case' => $name, 'tool' => 'hrtime loop', 'median_ns' => $means[15]]), "\n";
}
