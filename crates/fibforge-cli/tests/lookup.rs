//! `fibforge lookup` for scripts: each output format, address lists with comments and extra
//! columns (the shipped ipsum list), bad lines skipped or fatal (`--strict`), `--exit-code`,
//! prefix queries, and answers that agree with a brute-force longest match.

use assert_cmd::Command;
use std::path::PathBuf;

const TABLE: &str = "0.0.0.0/1\tlow\n10.0.0.0/8\tten\n10.1.0.0/16\tten-one\n\
                     2001:db8::/32\tdoc\n2001:db8:1::/48\t\"quoted\"\n";

/// A scratch folder with the small mixed table in it.
fn scratch(test: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("fibforge-lookup-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let table = dir.join("t.tsv");
    std::fs::write(&table, TABLE).unwrap();
    (dir, table.display().to_string())
}

/// Runs fibforge with `stdin`; returns (status, stdout, stderr).
fn run(args: &[&str], stdin: &str) -> (i32, String, String) {
    let out = Command::cargo_bin("fibforge").unwrap().args(args).write_stdin(stdin).output();
    let out = out.unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

#[test]
fn text_prefix_and_json_outputs() {
    let (_dir, t) = scratch("formats");
    let (code, out, err) = run(&["lookup", &t, "10.1.2.3", "200.0.0.1", "2001:db8:1::5"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "10.1.2.3\t10.1.0.0/16\tten-one\n200.0.0.1\t-\t-\n2001:db8:1::5\t2001:db8:1::/48\t\"quoted\"\n"
    );
    let (_, out, _) = run(&["lookup", &t, "--prefix", "10.1.2.3", "200.0.0.1", "1.2.3.4"], "");
    assert_eq!(out, "10.1.0.0/16\n-\n0.0.0.0/1\n");
    let (code, out, err) = run(&["lookup", &t, "--json", "10.9.9.9", "2001:db8:1::5", "::1"], "");
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).expect(l)).collect();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["address"], "10.9.9.9");
    assert_eq!(rows[0]["prefix"], "10.0.0.0/8");
    assert_eq!(rows[0]["value"], "ten");
    assert_eq!(rows[1]["value"], "\"quoted\"");
    assert_eq!(rows[2]["address"], "::1");
    assert!(rows[2]["prefix"].is_null() && rows[2]["value"].is_null());
    let (code, _, err) = run(&["lookup", &t, "--json", "--prefix", "10.0.0.1"], "");
    assert_eq!(code, 2, "{err}");
}

#[test]
fn json_reports_the_origin_as_of_a_table_with_an_as_column() {
    let (dir, _) = scratch("origin-as");
    let table = dir.join("as.txt");
    let text = "0.0.0.0/0 192.0.2.1 -\n10.0.0.0/8 192.0.2.1 3356 64500\n\
                10.1.0.0/16 192.0.2.2 AS64501\n2001:db8::/32 2001:db8::1 {64502,64503}\n";
    std::fs::write(&table, text).unwrap();
    let t = table.display().to_string();
    let queries = ["10.9.9.9", "10.1.2.3", "2001:db8::7", "192.0.2.1"];
    let (code, out, err) =
        run(&[&["lookup", &t, "--json", "--value", "origin_as"], &queries[..]].concat(), "");
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> =
        out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let origins: Vec<Option<u64>> = lines.iter().map(|v| v["origin_as"].as_u64()).collect();
    assert_eq!(origins, [Some(64500), Some(64501), Some(64502), None]);
    assert_eq!(
        (lines[0]["prefix"].as_str(), lines[0]["value"].as_str()),
        (Some("10.0.0.0/8"), Some("64500"))
    );
    assert_eq!(lines[3]["value"], "-", "the default route has no AS path");
    // Without --value origin_as the values are next hops and no origin_as key appears.
    let (_, out, _) = run(&["lookup", &t, "--json", "10.9.9.9"], "");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["value"], "192.0.2.1");
    assert!(v.get("origin_as").is_none());
    // A table without an AS column is refused, naming the line.
    let (code, _, err) =
        run(&["lookup", &scratch("origin-as-none").1, "--value", "origin_as", "10.0.0.1"], "");
    assert_eq!(code, 2);
    assert!(err.contains(":1") && err.contains("not an origin AS"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn lists_with_comments_and_columns_from_files_and_stdin() {
    let (dir, t) = scratch("lists");
    let list = dir.join("list.txt");
    std::fs::write(&list, "# a list\n\n10.1.2.3\t10\n  200.0.0.1 3 extra # why\r\n").unwrap();
    let l = list.display().to_string();
    let (code, out, err) = run(&["lookup", &t, "--file", &l, "-f", "-"], "2001:db8::9\n");
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "10.1.2.3\t10.1.0.0/16\tten-one\n200.0.0.1\t-\t-\n2001:db8::9\t2001:db8::/32\tdoc\n"
    );
    // Stdin alone when no query and no file is given.
    let (_, out, _) = run(&["lookup", &t, "--prefix"], "# x\n10.0.0.1 y\n");
    assert_eq!(out, "10.0.0.0/8\n");
}

#[test]
fn the_shipped_ipsum_list_reads_as_it_is() {
    let (_dir, t) = scratch("ipsum");
    let ipsum = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/ipsum-2026-08-22.txt.gz");
    let (code, out, err) = run(&["lookup", &t, "--file", ipsum, "--strict"], "");
    assert_eq!(code, 0, "{err}");
    // The list's own lines: every one that is not a comment names one address.
    let text = {
        use std::io::Read;
        let mut s = String::new();
        let mut f = fibforge_io::open::open(std::path::Path::new(ipsum)).unwrap();
        f.read_to_string(&mut s).unwrap();
        s
    };
    let addrs: Vec<&str> =
        text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect();
    assert!(addrs.len() > 100_000);
    assert_eq!(out.lines().count(), addrs.len());
    for (line, want) in out.lines().zip(&addrs).step_by(997) {
        let addr = want.split_whitespace().next().unwrap();
        assert!(line.starts_with(&format!("{addr}\t")), "{line} for {want}");
    }
}

#[test]
fn bad_lines_are_reported_with_their_number_and_skipped_unless_strict() {
    let (dir, t) = scratch("bad");
    let list = dir.join("bad.txt");
    std::fs::write(&list, "10.0.0.1\nnot-an-address\n10.1.0.1/16\n10.1.0.1\n").unwrap();
    let l = list.display().to_string();
    let (code, out, err) = run(&["lookup", &t, "--file", &l], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "10.0.0.1\t10.0.0.0/8\tten\n10.1.0.1\t10.1.0.0/16\tten-one\n");
    assert!(err.contains(&format!("{l}:2: 'not-an-address' is not an IPv4")), "{err}");
    assert!(err.contains(&format!("{l}:3: ")) && err.contains("host bits"), "{err}");
    assert!(err.contains("2 bad queries skipped"), "{err}");
    let (code, out, err) = run(&["lookup", &t, "--file", &l, "--strict"], "");
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "10.0.0.1\t10.0.0.0/8\tten\n", "answers before the bad line are kept");
    assert!(err.contains(&format!("{l}:2: 'not-an-address'")), "{err}");
    let (code, _, err) = run(&["lookup", &t, "--strict"], "10.0.0.1\n\n# c\nx\n");
    assert_eq!(code, 2);
    assert!(err.contains("stdin:4: 'x' is not"), "{err}");
    let (code, _, err) = run(&["lookup", &t, "--strict", "10.0.0.1", "1.2.3"], "");
    assert_eq!(code, 2);
    assert!(err.contains("argument 2: '1.2.3'"), "{err}");
    // A line with no break for 4 KiB is not an address list: the run ends, even without
    // --strict (skipping binary data could take forever).
    let (code, _, err) = run(&["lookup", &t], &"1".repeat(5000));
    assert_eq!(code, 2);
    assert!(err.contains("stdin:1: a line longer than 4096 bytes"), "{err}");
}

#[test]
fn exit_code_reports_queries_without_a_route() {
    let (_dir, t) = scratch("exit");
    assert_eq!(run(&["lookup", &t, "--exit-code", "10.0.0.1", "2001:db8::1"], "").0, 0);
    let (code, out, _) = run(&["lookup", &t, "--exit-code", "10.0.0.1", "200.0.0.1"], "");
    assert_eq!(code, 1);
    assert_eq!(out.lines().count(), 2, "every answer is still printed");
    assert_eq!(run(&["lookup", &t, "200.0.0.1"], "").0, 0, "without the option: status 0");
    assert_eq!(run(&["lookup", &t, "--exit-code"], "3ffe::1\n").0, 1);
}

#[test]
fn prefixes_get_their_longest_covering_route() {
    let (_dir, t) = scratch("prefixes");
    let queries = ["10.1.0.0/16", "10.1.128.0/17", "10.0.0.0/7", "10.2.0.0/15", "0.0.0.0/0"];
    let (code, out, err) = run(&[&["lookup", &t, "--prefix"][..], &queries].concat(), "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "10.1.0.0/16\n10.1.0.0/16\n0.0.0.0/1\n10.0.0.0/8\n-\n");
    let (_, out, _) = run(&["lookup", &t, "2001:db8:1:2::/64", "2001:db8::/31"], "");
    assert_eq!(out, "2001:db8:1:2::/64\t2001:db8:1::/48\t\"quoted\"\n2001:db8::/31\t-\t-\n");
}

/// Random addresses through every output path agree with a brute-force longest match over the
/// table's routes (the algorithm and the route index are both checked this way).
#[test]
fn answers_agree_with_a_brute_force_longest_match() {
    let (_dir, t) = scratch("brute");
    let routes: Vec<(u32, u32, &str)> =
        vec![(0, 1, "low"), (0x0a00_0000, 8, "ten"), (0x0a01_0000, 16, "ten-one")];
    let mut rng = fibforge::verify::rng::XorShift64::new(0x2545_f491);
    let mut addrs = Vec::new();
    for _ in 0..2000 {
        let x = rng.next_u64();
        let a = if x & 3 == 0 { 0x0a01_0000 | (x as u32 & 0xffff) } else { (x >> 16) as u32 };
        addrs.push(a);
    }
    let stdin: String =
        addrs.iter().map(|&a| format!("{}\n", std::net::Ipv4Addr::from(a))).collect();
    for algo in ["poptrie", "dir24_8", "radix"] {
        let (code, out, err) = run(&["lookup", &t, "--algo", algo], &stdin);
        assert_eq!(code, 0, "{algo}: {err}");
        for (line, &a) in out.lines().zip(&addrs) {
            let best = routes
                .iter()
                .filter(|(p, len, _)| *len == 0 || (a ^ p) >> (32 - len) == 0)
                .max_by_key(|(_, len, _)| *len);
            let want = match best {
                Some((p, len, v)) => format!(
                    "{}\t{}/{len}\t{v}",
                    std::net::Ipv4Addr::from(a),
                    std::net::Ipv4Addr::from(*p)
                ),
                None => format!("{}\t-\t-", std::net::Ipv4Addr::from(a)),
            };
            assert_eq!(line, want, "{algo}");
        }
        assert_eq!(out.lines().count(), addrs.len());
    }
}

#[test]
fn queries_of_a_family_the_table_lacks_are_warned_about_or_fatal_with_strict() {
    let (dir, _) = scratch("one-family");
    let v4 = dir.join("v4.tsv");
    std::fs::write(&v4, "10.0.0.0/8\tten\n").unwrap();
    let t = v4.display().to_string();
    let (code, out, err) = run(&["lookup", &t, "10.0.0.1", "2001:db8::1", "::1"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "10.0.0.1\t10.0.0.0/8\tten\n2001:db8::1\t-\t-\n::1\t-\t-\n");
    assert!(err.contains("argument 2: '2001:db8::1': the table has no IPv6 routes"), "{err}");
    assert_eq!(err.matches("no IPv6 routes").count(), 1, "one warning per family: {err}");
    let (code, out, err) = run(&["lookup", &t, "--strict"], "10.0.0.1\n2001:db8::1\n");
    assert_eq!(code, 2, "{err}");
    assert_eq!(out, "10.0.0.1\t10.0.0.0/8\tten\n");
    assert!(err.contains("stdin:2: '2001:db8::1': the table has no IPv6 routes"), "{err}");
}

#[test]
fn an_address_list_given_as_the_table_is_called_swapped() {
    let (dir, t) = scratch("swapped");
    let list = dir.join("addrs.txt");
    std::fs::write(&list, "10.0.0.1\n10.1.0.1\n").unwrap();
    let (code, _, err) = run(&["lookup", list.to_str().unwrap(), &t], "");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("looks like an address list") && err.contains("swapped"), "{err}");
    assert!(err.contains("fibforge lookup TABLE"), "{err}");
}

#[test]
fn csv_tables_and_maxmind_databases_are_looked_up() {
    let (dir, _) = scratch("csv-mmdb");
    let csv = dir.join("asn.csv");
    std::fs::write(
        &csv,
        "network,autonomous_system_number,autonomous_system_organization\n\
         1.0.0.0/24,13335,\"CLOUDFLARENET\"\n2001:db8::/32,64500,\"Example, Inc.\"\n",
    )
    .unwrap();
    let csv = csv.display().to_string();
    let (code, out, err) = run(&["lookup", &csv, "1.0.0.9", "2001:db8::1"], "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "1.0.0.9\t1.0.0.0/24\t13335\n2001:db8::1\t2001:db8::/32\t64500\n");
    let by_name = ["lookup", "--value-field", "autonomous_system_organization", &csv, "1.0.0.9"];
    let (code, out, err) = run(&by_name, "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "1.0.0.9\t1.0.0.0/24\tCLOUDFLARENET\n");
    let (code, _, err) = run(&["lookup", "--value-field", "asn", &csv, "1.0.0.9"], "");
    assert_ne!(code, 0);
    assert!(err.contains("no column named 'asn'"), "{err}");

    let mmdb = concat!(env!("CARGO_MANIFEST_DIR"), "/../fibforge-io/tests/data/country-v6.mmdb");
    let args = ["lookup", "--value-field", "country.iso_code", mmdb, "1.0.0.7", "2a01::1"];
    let (code, out, err) = run(&args, "");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "1.0.0.7\t1.0.0.0/24\tAU\n2a01::1\t2a00::/12\tDE\n");
    std::fs::remove_dir_all(&dir).unwrap();
}
