package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fiftyFileModule is a Go module of 50 files in 5 packages, each file's
// function calling one of the previous file's.
func fiftyFileModule(b *testing.B) string {
	dir := lspModule(b, "")
	for p := 0; p < 5; p++ {
		for f := 0; f < 10; f++ {
			body := fmt.Sprintf("package p%d\n\n// F%d is step %d.\nfunc F%d(n int) int {\n\treturn n + %d\n}\n", p, f, f, f, f)
			if f > 0 {
				body = fmt.Sprintf("package p%d\n\n// F%d is step %d.\nfunc F%d(n int) int {\n\treturn F%d(n) + %d\n}\n", p, f, f, f, f-1, f)
			}
			path := filepath.Join(dir, fmt.Sprintf("p%d", p), fmt.Sprintf("f%d.go", f))
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	return dir
}

func runOK(b *testing.B, dir string, args ...string) Result {
	b.Helper()
	r := lspRun(b, dir, args...)
	if r.Code != 0 {
		b.Fatalf("aw %v: %s", args, r.Stdout)
	}
	return r
}

func reportMedian(b *testing.B, name string, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2])/float64(time.Millisecond), name)
}

// BenchmarkLSPDefinition: `aw lsp definition` as a CLI process on a
// 50-file module: the first call (broker and gopls start: cold) and the
// median of warm calls (target: < 150 ms).
//
//	go test ./cmd/aw -run '^$' -bench BenchmarkLSPDefinition -benchtime 20x
func BenchmarkLSPDefinition(b *testing.B) {
	needGopls(b)
	dir := fiftyFileModule(b)
	start := time.Now()
	runOK(b, dir, "lsp", "definition", "p4/f9.go", "5", "F8")
	cold := time.Since(start)
	var warm []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := time.Now()
		r := runOK(b, dir, "lsp", "definition", "p4/f9.go", "5", "F8")
		warm = append(warm, time.Since(s))
		if l := r.field(b, ".data.locations.0.path"); l != "p4/f8.go" {
			b.Fatalf("definition of F8: %v", l)
		}
	}
	reportMedian(b, "warm-median-ms", warm)
	b.ReportMetric(float64(cold)/float64(time.Millisecond), "cold-ms") // after ResetTimer, which drops metrics
}

// BenchmarkDiagnosticsOnWrite: what diagnostics on write add to a one-line
// Go edit with gopls warm (target: < 500 ms median): the same apply with
// lsp.diagnosticsOnWrite on and off, alternating.
//
//	go test ./cmd/aw -run '^$' -bench BenchmarkDiagnosticsOnWrite -benchtime 10x
func BenchmarkDiagnosticsOnWrite(b *testing.B) {
	needGopls(b)
	dir := fiftyFileModule(b)
	runOK(b, dir, "lsp", "diagnostics", "p0/f1.go")
	config := filepath.Join(dir, ".agentic", "config.json")
	var on, off []time.Duration
	k := 100
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, enabled := range []bool{true, false} {
			os.WriteFile(config, []byte(`{"permissionMode": 2, "lsp": {"diagnosticsOnWrite": `+strconv.FormatBool(enabled)+`}}`), 0o644)
			k++
			op := fmt.Sprintf(`{"type":"splice","path":"p0/f1.go","start_line":5,"delete_count":1,"content":"\treturn F0(n) + %d\n"}`, k)
			s := time.Now()
			r := runOK(b, dir, "edit", "apply", "--op", op)
			d := time.Since(s)
			if enabled {
				on = append(on, d)
				if r.field(b, ".data.diagnostics.available") != true {
					b.Fatalf("diagnostics unavailable: %s", r.Stdout)
				}
			} else {
				off = append(off, d)
			}
		}
	}
	reportMedian(b, "on-median-ms", on)
	reportMedian(b, "off-median-ms", off)
}

// BenchmarkBrokerMemory: the resident memory of the broker and of its
// gopls at rest, after a query on the 50-file module.
//
//	go test ./cmd/aw -run '^$' -bench BenchmarkBrokerMemory -benchtime 1x
func BenchmarkBrokerMemory(b *testing.B) {
	needGopls(b)
	dir := fiftyFileModule(b)
	for i := 0; i < b.N; i++ {
		runOK(b, dir, "lsp", "definition", "p4/f9.go", "5", "F8")
	}
	time.Sleep(2 * time.Second)
	r := runOK(b, dir, "broker", "status")
	pid := int(r.field(b, ".data.pid").(float64))
	b.ReportMetric(float64(rssKiB(pid))/1024, "broker-MiB")
	var servers int
	for _, h := range r.field(b, ".data.held").([]any) {
		servers += treeRSSKiB(int(h.(map[string]any)["pid"].(float64)))
	}
	b.ReportMetric(float64(servers)/1024, "gopls-tree-MiB")
}

// rssKiB reads VmRSS of pid from /proc.
func rssKiB(pid int) int {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

// treeRSSKiB sums the RSS of pid and its descendants (bwrap, then gopls).
func treeRSSKiB(pid int) int {
	total := rssKiB(pid)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		s := string(raw)
		if i := strings.LastIndexByte(s, ')'); i > 0 {
			f := strings.Fields(s[i+1:])
			if len(f) > 1 && f[1] == strconv.Itoa(pid) {
				total += treeRSSKiB(child)
			}
		}
	}
	return total
}
