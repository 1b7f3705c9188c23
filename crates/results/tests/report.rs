//! The report and the exporters on synthetic runs: the CSV parses back to the stored
//! figures, the JSON has the documented layout, the HTML page escapes what runs carry,
//! embeds its pictures and fetches nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use cipherlab_harness::machine::MachineInfo;
use cipherlab_results::artifact::{Artifact, Content, Histogram, Table};
use cipherlab_results::report::export::{
    CSV_COLUMNS, CsvExporter, Exporter, JsonExporter, by_name,
};
use cipherlab_results::report::{self, html, svg};
use cipherlab_results::store::{Run, Store};
use serde_json::Value;
use support::{id, measurement, samples, saved};

/// A label a user's file could have: CSV and HTML metacharacters, a line break.
const HOSTILE: &str = "scan, \"final\"\n<script>alert(1)</script>";

/// A tiny PNG (1x1, red) as the ECB picture stand-in.
fn png() -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, 1, 1);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&[255, 0, 0]).unwrap();
    }
    out
}

fn run() -> Run {
    let mut ms = Vec::new();
    let mut seed = 1;
    for (alg, ns) in [("aes-128-ecb", 20_000.0), ("des-ecb", 700_000.0)] {
        for size in [16_384u64, 262_144, 1_048_576] {
            let per_op = ns * size as f64 / 65_536.0;
            ms.push(measurement(
                id("data-size", alg, "encrypt", size, "bmp"),
                samples(per_op, 0.01, 20, seed),
            ));
            seed += 1;
        }
        ms.push(measurement(
            id("data-type", alg, "encrypt", 65_536, HOSTILE),
            samples(ns, 0.01, 20, seed),
        ));
        seed += 1;
    }
    let mut table = Table::new(&["cipher", "paper", "ours"]);
    table.row(vec![
        Value::from("<b>des</b>"),
        Value::from(8.4),
        Value::from(9.1),
    ]);
    let artifacts = vec![
        table.artifact("data-size", "paper/table-3", "Table 3 & ours"),
        Artifact::new(
            "distribution",
            "histogram/none/x",
            "plaintext",
            Content::Histogram(Histogram {
                label: "plaintext <x>".into(),
                ..Histogram::of("none", "x", &[7u8; 2560])
            }),
        ),
        Artifact::new(
            "distribution",
            "picture/aes-128-ecb",
            "ECB \"penguin\"",
            Content::Image(png()),
        ),
    ];
    let mut store = Store::open_in_memory().unwrap();
    saved(&mut store, MachineInfo::detect(), &ms, &artifacts)
}

/// RFC 4180 records, written here independently of the exporter.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                c => field.push(c),
            }
        } else {
            match c {
                '"' => quoted = true,
                ',' => row.push(std::mem::take(&mut field)),
                '\r' => {}
                '\n' => {
                    row.push(std::mem::take(&mut field));
                    rows.push(std::mem::take(&mut row));
                }
                c => field.push(c),
            }
        }
    }
    assert!(!quoted, "unterminated quoted field");
    assert!(
        field.is_empty() && row.is_empty(),
        "last record not terminated"
    );
    rows
}

#[test]
fn csv_parses_back_to_the_stored_figures() {
    let run = run();
    let text =
        String::from_utf8(CsvExporter.serialize(std::slice::from_ref(&run)).unwrap()).unwrap();
    let rows = parse_csv(&text);
    assert_eq!(rows[0], CSV_COLUMNS.to_vec());
    assert_eq!(rows.len(), 1 + run.measurements.len());
    let col = |name: &str| CSV_COLUMNS.iter().position(|c| *c == name).unwrap();
    for (row, m) in rows[1..].iter().zip(&run.measurements) {
        assert_eq!(row.len(), CSV_COLUMNS.len());
        assert_eq!(row[col("run_id")], run.info.id.to_string());
        assert_eq!(row[col("algorithm")], m.id.algorithm.name());
        assert_eq!(row[col("data_type")], m.id.data_type, "quoting round-trips");
        assert_eq!(row[col("size_bytes")].parse::<u64>().unwrap(), m.id.size);
        assert_eq!(row[col("timer")], m.timer, "every column, the clock too");
        // Floats read back bit for bit.
        assert_eq!(row[col("median")].parse::<f64>().unwrap(), m.summary.median);
        assert_eq!(
            row[col("ci_low")].parse::<f64>().unwrap(),
            m.summary.median_ci.low
        );
        assert_eq!(
            row[col("ci_high")].parse::<f64>().unwrap(),
            m.summary.median_ci.high
        );
        assert_eq!(
            row[col("bytes_per_second")].parse::<f64>().unwrap(),
            m.bytes_per_second.unwrap()
        );
        assert_eq!(row[col("ticks_per_op")], "", "no counter: empty field");
        let w: Value = serde_json::from_str(&row[col("warnings_json")]).unwrap();
        assert!(w.is_array());
    }
    assert!(rows.iter().any(|r| r[col("data_type")] == HOSTILE));
}

#[test]
fn json_has_the_documented_layout() {
    let run = run();
    let bytes = JsonExporter.serialize(std::slice::from_ref(&run)).unwrap();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(v["format"], "cipherlab-results");
    assert_eq!(v["format_version"], 1);
    assert_eq!(
        v["schema_version"],
        cipherlab_results::store::SCHEMA_VERSION
    );
    let r = &v["runs"][0];
    assert_eq!(r["id"], run.info.id);
    assert_eq!(r["uuid"], run.info.uuid);
    assert_eq!(r["machine_fingerprint"], run.machine.fingerprint());
    for key in [
        "cpu_model",
        "cpu_flags",
        "logical_cores",
        "os",
        "rustc",
        "crate_versions",
    ] {
        assert!(!r["machine"][key].is_null(), "machine.{key}");
    }
    assert!(r["settings"]["bootstrap"]["resamples"].is_u64());
    assert!(r["validity"]["resolution_ns"].is_u64());
    let ms = r["measurements"].as_array().unwrap();
    assert_eq!(ms.len(), run.measurements.len());
    for (m, stored) in ms.iter().zip(&run.measurements) {
        // Every CSV column but run_id (the run holds it) and warnings_json (here an array).
        for c in CSV_COLUMNS
            .iter()
            .filter(|c| !["run_id", "warnings_json"].contains(c))
        {
            assert!(m.get(*c).is_some(), "measurement lacks {c}");
        }
        assert_eq!(m["median"].as_f64().unwrap(), stored.summary.median);
        assert!(m["warnings"].is_array());
        assert_eq!(m["samples"].as_array().unwrap().len(), stored.samples.len());
        assert!(m["samples"][0]["ns"].is_u64());
    }
    let arts = r["artifacts"].as_array().unwrap();
    assert_eq!(arts.len(), run.artifacts.len());
    let pic = arts.iter().find(|a| a["kind"] == "image").unwrap();
    assert_eq!(pic["media_type"], "image/png");
    assert_eq!(pic["bytes"], png().len());
    assert!(pic.get("data").is_none(), "metadata only");
    assert!(by_name("csv").is_some() && by_name("json").is_some() && by_name("xml").is_none());
}

#[test]
fn html_is_self_contained_escaped_and_has_the_plots() {
    let run = run();
    let page = report::html(std::slice::from_ref(&run), "test <db>", &[]);
    assert!(page.starts_with("<!DOCTYPE html>"));
    // What the run carries is escaped wherever it appears.
    assert!(
        !page.contains("<script"),
        "no script, and the label is escaped"
    );
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("&lt;b&gt;des&lt;/b&gt;"));
    assert!(page.contains("test &lt;db&gt;"));
    assert!(page.contains("ECB &quot;penguin&quot;"));
    // Nothing is fetched: the only URL is SVG's namespace name.
    let without_ns = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!without_ns.contains("http:") && !without_ns.contains("https:"));
    assert!(!page.contains(" src=\"/") && !page.contains("<link"));
    // The picture is embedded, byte for byte.
    assert!(page.contains(&html::data_uri("image/png", &png())));
    // Plots: data-size against size, data-type by type; both ciphers in each.
    assert!(page.contains("data-size: encrypt of bmp, against size"));
    assert!(page.contains("data-type: encrypt by data type"));
    let plots = page.matches("class=\"plot\"").count();
    assert_eq!(plots, 2, "one plot per study with timings");
    assert!(page.contains(svg::PALETTE[0]) && page.contains(svg::PALETTE[1]));
    assert!(!html::CSS.contains(svg::PALETTE[0]) && !html::CSS.contains(svg::PALETTE[1]));
    // The histogram, the table, the machine block, the validity figures, the ranking.
    assert_eq!(page.matches("class=\"histogram\"").count(), 1);
    assert!(page.contains("Table 3 &amp; ours"));
    assert!(page.contains(&html::escape(&run.machine.cpu_model)));
    assert!(page.contains("timer resolution") && page.contains("20 ns"));
    assert!(page.contains("Ranking: encrypt, 1048576 B of bmp"));
    assert_eq!(page.matches("<img").count(), 1);
}

#[test]
fn several_runs_are_overlaid_with_one_style_per_run() {
    let a = run();
    let mut b = run();
    b.info.id = 7;
    let page = report::html(&[a, b], "db", &[]);
    assert!(page.contains("aes-128-ecb · run 1") && page.contains("aes-128-ecb · run 7"));
    assert!(
        page.contains("stroke-dasharray=\"6 3\""),
        "run 2's dash pattern"
    );
    assert!(page.contains("Ranking (run 7)"));
}

#[test]
fn an_empty_run_still_makes_a_page() {
    let mut store = Store::open_in_memory().unwrap();
    let r = saved(&mut store, MachineInfo::detect(), &[], &[]);
    let page = report::html(&[r], "db", &[]);
    assert!(page.contains("Machine and validity"));
    assert!(!page.contains("class=\"plot\""));
    assert!(page.ends_with("</html>\n"));
}

#[test]
fn two_providers_of_one_cipher_get_a_line_each() {
    let mut ms = Vec::new();
    for (provider, ns) in [("rustcrypto", 1000.0), ("openssl", 800.0)] {
        for size in [1024u64, 65_536] {
            let mut bench = id("data-size", "aes-128-ecb", "encrypt", size, "bmp");
            bench.implementation = provider.to_string();
            ms.push(measurement(
                bench,
                samples(ns * size as f64 / 1024.0, 0.01, 20, size),
            ));
        }
    }
    let mut store = Store::open_in_memory().unwrap();
    let r = saved(&mut store, MachineInfo::detect(), &ms, &[]);
    let page = report::html(&[r], "db", &[]);
    assert!(
        page.contains("<title>aes-128-ecb (rustcrypto)</title>"),
        "{page}"
    );
    assert!(page.contains("<title>aes-128-ecb (openssl)</title>"));
    assert_eq!(page.matches("<polyline").count(), 2);
}

/// The JSON type of a value, as the format tests name them.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// `obj` has exactly `fields` with those types ("number" also accepts an integer, as
/// JSON readers do).
fn has_fields(obj: &Value, fields: &[(&str, &str)], what: &str) {
    let map = obj
        .as_object()
        .unwrap_or_else(|| panic!("{what} is not an object"));
    for (name, want) in fields {
        let v = map
            .get(*name)
            .unwrap_or_else(|| panic!("{what} has no `{name}`"));
        let got = kind(v);
        assert!(
            got == *want || (*want == "number" && got == "int"),
            "{what}.{name}: {got}, want {want}"
        );
    }
}

/// JMH's fields and types, as its `JSONResultFormat` writes them (docs/results.md cites
/// the source): a top-level array of benchmarks.
#[test]
fn jmh_export_has_jmhs_fields_and_types() {
    use cipherlab_results::report::jmh::JmhExporter;
    let run = run();
    let v: Value =
        serde_json::from_slice(&JmhExporter.serialize(std::slice::from_ref(&run)).unwrap())
            .unwrap();
    let all = v.as_array().unwrap();
    assert_eq!(all.len(), run.measurements.len());
    for (b, m) in all.iter().zip(&run.measurements) {
        has_fields(
            b,
            &[
                ("benchmark", "string"),
                ("mode", "string"),
                ("threads", "int"),
                ("forks", "int"),
                ("warmupIterations", "int"),
                ("warmupTime", "string"),
                ("warmupBatchSize", "int"),
                ("measurementIterations", "int"),
                ("measurementTime", "string"),
                ("measurementBatchSize", "int"),
                ("params", "object"),
                ("primaryMetric", "object"),
                ("secondaryMetrics", "object"),
            ],
            "benchmark",
        );
        assert!(["thrpt", "avgt", "sample", "ss"].contains(&b["mode"].as_str().unwrap()));
        assert!(
            b["params"]
                .as_object()
                .unwrap()
                .values()
                .all(Value::is_string)
        );
        let p = &b["primaryMetric"];
        has_fields(
            p,
            &[
                ("score", "number"),
                ("scoreError", "number"),
                ("scoreConfidence", "array"),
                ("scorePercentiles", "object"),
                ("scoreUnit", "string"),
                ("rawData", "array"),
            ],
            "primaryMetric",
        );
        assert_eq!(p["score"].as_f64().unwrap(), m.summary.median);
        assert_eq!(p["scoreConfidence"].as_array().unwrap().len(), 2);
        let keys: Vec<&String> = p["scorePercentiles"].as_object().unwrap().keys().collect();
        for k in [
            "0.0", "50.0", "90.0", "95.0", "99.0", "99.9", "99.99", "99.999", "99.9999", "100.0",
        ] {
            assert!(
                keys.iter().any(|x| *x == k),
                "percentile {k} missing: {keys:?}"
            );
        }
        // rawData: one array of numbers per fork, every sample once.
        let raw = p["rawData"].as_array().unwrap();
        let total: usize = raw.iter().map(|f| f.as_array().unwrap().len()).sum();
        assert_eq!(total, m.samples.len());
        assert!(
            raw.iter()
                .flat_map(|f| f.as_array().unwrap())
                .all(Value::is_number)
        );
        assert_eq!(p["scoreUnit"], "ns/op");
    }
}

/// Google Benchmark's fields and types, as its `JSONReporter` writes them
/// (docs/results.md cites the source): `context` and `benchmarks`.
#[test]
fn gbench_export_has_google_benchmarks_fields_and_types() {
    use cipherlab_results::report::gbench::GoogleBenchmarkExporter;
    let run = run();
    let v: Value = serde_json::from_slice(
        &GoogleBenchmarkExporter
            .serialize(std::slice::from_ref(&run))
            .unwrap(),
    )
    .unwrap();
    has_fields(
        &v["context"],
        &[
            ("date", "string"),
            ("host_name", "string"),
            ("executable", "string"),
            ("num_cpus", "int"),
            ("mhz_per_cpu", "int"),
            ("caches", "array"),
            ("load_avg", "array"),
            ("library_build_type", "string"),
        ],
        "context",
    );
    assert_eq!(v["context"]["host_name"], run.machine.hostname_hash);
    let rows = v["benchmarks"].as_array().unwrap();
    let samples: usize = run.measurements.iter().map(|m| m.samples.len()).sum();
    assert_eq!(rows.len(), samples + 3 * run.measurements.len());
    for r in rows {
        let common = [
            ("name", "string"),
            ("run_name", "string"),
            ("run_type", "string"),
            ("repetitions", "int"),
            ("threads", "int"),
            ("iterations", "int"),
            ("real_time", "number"),
            ("cpu_time", "number"),
            ("time_unit", "string"),
        ];
        has_fields(r, &common, "benchmark row");
        match r["run_type"].as_str().unwrap() {
            "iteration" => has_fields(r, &[("repetition_index", "int")], "iteration row"),
            "aggregate" => has_fields(r, &[("aggregate_name", "string")], "aggregate row"),
            other => panic!("run_type {other}"),
        }
        assert!(["ns", "us", "ms", "s"].contains(&r["time_unit"].as_str().unwrap()));
    }
    let median = rows
        .iter()
        .find(|r| r["aggregate_name"] == "median")
        .unwrap();
    assert_eq!(
        median["real_time"].as_f64().unwrap(),
        run.measurements[0].median_ns_per_op()
    );
    // One run per file, as Google Benchmark writes.
    let two = [run.clone(), run];
    let e = GoogleBenchmarkExporter.serialize(&two).unwrap_err();
    assert!(e.to_string().contains("one run"), "{e}");
}

/// The platforms study's plots are the web-platforms paper's Figure 1: per cipher and
/// direction, ns per byte against the file size on log scales, one line per runtime,
/// each point with its interval; a cipher timed at one size gets none.
#[test]
fn platforms_plots_ns_per_byte_against_size_one_line_per_runtime() {
    use cipherlab_results::id::Runtime;
    use cipherlab_results::report::figures::{RunSlice, plots};
    // Java: 2 us fixed + 1 ns/B; Node: 10 us fixed + 2 ns/B; AES-GCM on Java at one size.
    let mut ms = Vec::new();
    for (runtime, fixed, per_byte) in [
        (Runtime::parse("java").unwrap(), 2_000.0, 1.0),
        (Runtime::parse("node").unwrap(), 10_000.0, 2.0),
    ] {
        for size in [145u64, 1 << 20] {
            let ns = fixed + per_byte * size as f64;
            let id = id("platforms", "aes-128-cbc", "encrypt", size, "dense").with_runtime(runtime);
            ms.push(measurement(id, samples(ns, 0.01, 20, size)));
        }
    }
    let gcm = id("platforms", "aes-128-gcm", "encrypt", 1024, "dense")
        .with_runtime(Runtime::parse("java").unwrap());
    ms.push(measurement(gcm, samples(3_000.0, 0.01, 20, 9)));
    let slice = RunSlice {
        index: 0,
        id: 1,
        measurements: ms.iter().collect(),
    };
    let got = plots("platforms", &[slice]);
    assert_eq!(
        got.len(),
        1,
        "one panel: aes-128-cbc encrypt; gcm has one size"
    );
    let p = &got[0];
    assert_eq!(
        p.title,
        "platforms: encrypt of aes-128-cbc, ns per byte by runtime"
    );
    assert_eq!(p.y_label, "ns per byte (median, 99% CI)");
    assert_eq!(
        p.y_scale,
        svg::Scale::Log,
        "ns/B spans decades between 145 B and 1 MiB"
    );
    assert!(matches!(
        p.x,
        svg::XAxis::Numeric(svg::Scale::Log, svg::Format::Bytes)
    ));
    let labels: Vec<&str> = p.series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["java (rustcrypto)", "node (rustcrypto)"]);
    let java = &p.series[0].points;
    let want = (2_000.0 + 145.0) / 145.0;
    assert!(
        (java[0].y / want - 1.0).abs() < 0.02,
        "{} against {want}",
        java[0].y
    );
    assert!(java[0].low <= java[0].y && java[0].y <= java[0].high);
    let big = (2_000.0 + 1_048_576.0) / 1_048_576.0;
    assert!((java[1].y / big - 1.0).abs() < 0.02);
}

#[test]
fn studies_come_in_the_order_and_with_the_titles_the_lab_gives() {
    use cipherlab_results::report::StudyAbout;
    let run = run();
    let about = |name: &str, title: &str| StudyAbout {
        name: name.into(),
        title: title.into(),
        source: format!("source of {name}"),
    };
    // The run holds data-type and data-size; the lab lists data-size first.
    let given = [
        about("data-size", "Sizes <title>"),
        about("data-type", "Types"),
    ];
    let page = report::html(std::slice::from_ref(&run), "db", &given);
    let at = |s: &str| page.find(s).unwrap_or_else(|| panic!("no {s}"));
    assert!(at("id=\"study-data-size\"") < at("id=\"study-data-type\""));
    assert!(page.contains("Sizes &lt;title&gt; — from: source of data-size"));
    // Reversed list, reversed sections; without a list, no titles at all.
    let reversed = [about("data-type", "Types"), about("data-size", "Sizes")];
    let page = report::html(std::slice::from_ref(&run), "db", &reversed);
    assert!(page.find("id=\"study-data-type\"") < page.find("id=\"study-data-size\""));
    let bare = report::html(std::slice::from_ref(&run), "db", &[]);
    assert!(!bare.contains(" — from: "));
}

#[test]
fn a_profile_is_drawn_as_a_flame_graph_without_script() {
    use cipherlab_results::artifact::Profile;
    let mut p = Profile::default();
    p.add(&["main", "encrypt", "aes::soft::encrypt <&[u8]>"], 75);
    p.add(&["main", "write"], 25);
    let mut store = Store::open_in_memory().unwrap();
    let ms = [measurement(
        id("data-size", "aes-128-cbc", "encrypt", 4096, "bmp"),
        samples(1000.0, 0.01, 10, 1),
    )];
    let profile = Artifact::new(
        "data-size",
        "profile/data-size/aes-128-cbc/rustcrypto/rust/encrypt/4096/bmp",
        "aes-128-cbc · encrypt",
        Content::Profile(p),
    );
    let r = saved(&mut store, MachineInfo::detect(), &ms, &[profile]);
    let page = report::html(&[r], "db", &[]);
    assert!(page.contains("Where the CPU time went"));
    assert!(
        page.contains(
            "<details class=\"profile\" open><summary>aes-128-cbc · encrypt — 100 samples"
        )
    );
    assert!(page.contains("class=\"flame\""));
    // Names are escaped, widths follow the samples: encrypt has 3/4 of 960 px.
    assert!(page.contains("aes::soft::encrypt &lt;&amp;[u8]&gt; (75 samples, 75.0%)"));
    assert!(page.contains("width=\"720.00\""));
    assert!(page.contains("width=\"240.00\""));
    assert!(!page.contains("<script"));
}

#[test]
fn the_claims_summary_is_at_the_top_before_the_first_study() {
    use cipherlab_results::artifact::Cell;
    use cipherlab_results::verdict::Agreement;
    let mut claims = Table::new(&["the paper's claim, tested", "verdict"]);
    for (claim, v) in [
        ("AES is faster than DES", Agreement::Agrees),
        ("RC4 is slower with a longer key", Agreement::Differs),
        ("Blowfish is the fastest", Agreement::CantTell),
    ] {
        claims.row(vec![Cell::from(Value::from(claim)), v.into()]);
    }
    let ms = [measurement(
        id("data-size", "aes-128-ecb", "encrypt", 65_536, "bmp"),
        samples(20_000.0, 0.01, 20, 1),
    )];
    let mut store = Store::open_in_memory().unwrap();
    let run = saved(
        &mut store,
        MachineInfo::detect(),
        &ms,
        &[claims.artifact("data-size", "claims", "Claims")],
    );
    let page = report::html(std::slice::from_ref(&run), "db", &[]);
    let summary = page
        .find("3 paper claims checked: 1 agree, 1 differ, 1 can&#39;t tell")
        .unwrap_or_else(|| panic!("no summary in the page"));
    let differing = page.find("RC4 is slower with a longer key").unwrap();
    let first_study = page.find("<h2 id=\"study-").unwrap();
    let machine = page.find("<h2 id=\"machine\"").unwrap();
    assert!(summary < differing && differing < machine && machine < first_study);
    // The verdict cells in the study's table carry their type as a class.
    assert!(page.contains("class=\"verdict differs\""));
    // A run without verdicts says so, rather than counting zero silently.
    let bare = report::html(&[run_without_claims()], "db", &[]);
    assert!(bare.contains("no paper claim checked"));
}

fn run_without_claims() -> Run {
    let mut store = Store::open_in_memory().unwrap();
    saved(&mut store, MachineInfo::detect(), &[], &[])
}
