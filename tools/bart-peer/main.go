// Command bart-peer is fibforge's peer for github.com/gaissmai/bart: it builds a bart.Table
// from a route file, answers the verification addresses (so that the Rust side compares
// them with its oracle) and times lookups itself, printing one JSON object.
//
// Input (text, one item per line):
//
//	-routes FILE    "prefix<TAB>raw" — raw is fibforge's next-hop id + 1 (never 0)
//	-probes FILE    addresses to answer
//	-traffic NAME=FILE  addresses of a traffic pattern, looked up in a loop (repeatable)
//	-random         also time uniform random addresses drawn by xorshift inside the loop
//	                (IPv4: all of it; IPv6: 2000::/3)
//
// Output: -answers FILE gets one raw next hop per probe (0: no route); stdout gets
// {"bart": version, "go": version, "routes": n, "build_ms": f, "memory_bytes": n,
// "results": [{"traffic": name, "mlps": [one per repeat]}]}.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gaissmai/bart"
)

type trafficFlag []string

func (t *trafficFlag) String() string     { return strings.Join(*t, ",") }
func (t *trafficFlag) Set(v string) error { *t = append(*t, v); return nil }

type result struct {
	Traffic string    `json:"traffic"`
	Mlps    []float64 `json:"mlps"`
}

type report struct {
	Bart        string   `json:"bart"`
	Go          string   `json:"go"`
	Routes      int      `json:"routes"`
	BuildMs     float64  `json:"build_ms"`
	MemoryBytes uint64   `json:"memory_bytes"`
	Results     []result `json:"results"`
}

func main() {
	routes := flag.String("routes", "", "route file")
	probes := flag.String("probes", "", "verification addresses")
	answers := flag.String("answers", "", "where the probe answers go")
	family := flag.Int("family", 4, "4 or 6")
	random := flag.Bool("random", false, "time xorshift random addresses")
	duration := flag.Float64("duration", 0.2, "seconds per repeat")
	repeats := flag.Int("repeats", 3, "repeats per traffic pattern")
	var traffic trafficFlag
	flag.Var(&traffic, "traffic", "NAME=FILE (repeatable)")
	flag.Parse()
	if err := run(*routes, *probes, *answers, *family, *random, *duration, *repeats, traffic); err != nil {
		fmt.Fprintln(os.Stderr, "bart-peer:", err)
		os.Exit(1)
	}
}

func run(routes, probes, answers string, family int, random bool, secs float64, repeats int, traffic []string) error {
	var rep report
	rep.Results = []result{}
	rep.Go = runtime.Version()
	rep.Bart = bartVersion()
	t, n, ms, mem, err := build(routes)
	if err != nil {
		return err
	}
	rep.Routes, rep.BuildMs, rep.MemoryBytes = n, ms, mem
	if probes != "" {
		if err := answer(t, probes, answers); err != nil {
			return err
		}
	}
	d := time.Duration(secs * float64(time.Second))
	if random {
		r := result{Traffic: "random"}
		for i := 0; i < repeats; i++ {
			r.Mlps = append(r.Mlps, timeRandom(t, family == 6, d, uint64(i)+1))
		}
		rep.Results = append(rep.Results, r)
	}
	for _, tf := range traffic {
		name, file, ok := strings.Cut(tf, "=")
		if !ok {
			return fmt.Errorf("-traffic %q: want NAME=FILE", tf)
		}
		addrs, err := readAddrs(file)
		if err != nil {
			return err
		}
		r := result{Traffic: name}
		for i := 0; i < repeats; i++ {
			r.Mlps = append(r.Mlps, timeArray(t, addrs, d))
		}
		rep.Results = append(rep.Results, r)
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}

func bartVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "github.com/gaissmai/bart" {
				return m.Version
			}
		}
	}
	return "unknown"
}

// build reads the routes and inserts them; it returns the table, the route count, the
// insert time and the heap growth (after a GC on both sides).
func build(file string) (*bart.Table[uint32], int, float64, uint64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, 0, 0, 0, err
	}
	defer f.Close()
	type route struct {
		pfx netip.Prefix
		raw uint32
	}
	var rs []route
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		p, v, ok := strings.Cut(sc.Text(), "\t")
		pfx, err1 := netip.ParsePrefix(p)
		raw, err2 := strconv.ParseUint(v, 10, 32)
		if !ok || err1 != nil || err2 != nil {
			return nil, 0, 0, 0, fmt.Errorf("%s:%d: want prefix<TAB>raw, got %q", file, line, sc.Text())
		}
		rs = append(rs, route{pfx, uint32(raw)})
	}
	if err := sc.Err(); err != nil {
		return nil, 0, 0, 0, err
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	t := new(bart.Table[uint32])
	for _, r := range rs {
		t.Insert(r.pfx, r.raw)
	}
	ms := float64(time.Since(start).Nanoseconds()) / 1e6
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(rs)
	var mem uint64
	if after.HeapAlloc > before.HeapAlloc {
		mem = after.HeapAlloc - before.HeapAlloc
	}
	return t, len(rs), ms, mem, nil
}

func readAddrs(file string) ([]netip.Addr, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []netip.Addr
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		a, err := netip.ParseAddr(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, line, err)
		}
		out = append(out, a)
	}
	return out, sc.Err()
}

func answer(t *bart.Table[uint32], probes, answers string) error {
	addrs, err := readAddrs(probes)
	if err != nil {
		return err
	}
	f, err := os.Create(answers)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, a := range addrs {
		v, ok := t.Lookup(a)
		if !ok {
			v = 0
		}
		w.WriteString(strconv.FormatUint(uint64(v), 10))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// sink keeps the lookups alive.
var sink uint64

const chunk = 1 << 14

// timeRandom looks up xorshift64 addresses generated in the loop for about d.
func timeRandom(t *bart.Table[uint32], v6 bool, d time.Duration, seed uint64) float64 {
	// Four xorshift64 streams used in turn, as fibforge-bench's generator (one stream's six
	// dependent operations per step would pace the loop, not the lookup).
	step := func(x uint64) uint64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	x := seed*0x9E3779B97F4A7C15 | 1
	var st [4]uint64
	for i := range st {
		x = step(x)
		st[i] = x
	}
	next := func() uint64 {
		v := step(st[0])
		st[0], st[1], st[2], st[3] = st[1], st[2], st[3], v
		return v
	}
	var sum uint64
	lookups := 0
	start := time.Now()
	for time.Since(start) < d {
		for i := 0; i < chunk; i++ {
			var a netip.Addr
			if v6 {
				var b [16]byte
				hi, lo := next(), next()
				hi = hi>>3 | 1<<61 // 2000::/3
				for k := 0; k < 8; k++ {
					b[k] = byte(hi >> (56 - 8*k))
					b[8+k] = byte(lo >> (56 - 8*k))
				}
				a = netip.AddrFrom16(b)
			} else {
				v := uint32(next() >> 32)
				a = netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
			}
			h, _ := t.Lookup(a)
			sum += uint64(h)
		}
		lookups += chunk
	}
	sink += sum
	return float64(lookups) / time.Since(start).Seconds() / 1e6
}

// timeArray looks up the given addresses in order, round and round, for about d.
func timeArray(t *bart.Table[uint32], addrs []netip.Addr, d time.Duration) float64 {
	if len(addrs) == 0 {
		return 0
	}
	var sum uint64
	lookups, j := 0, 0
	start := time.Now()
	for time.Since(start) < d {
		for i := 0; i < chunk; i++ {
			h, _ := t.Lookup(addrs[j])
			sum += uint64(h)
			j++
			if j == len(addrs) {
				j = 0
			}
		}
		lookups += chunk
	}
	sink += sum
	return float64(lookups) / time.Since(start).Seconds() / 1e6
}
