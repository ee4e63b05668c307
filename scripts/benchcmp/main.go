// Command benchcmp is aw's performance harness, run through
// scripts/bench. It builds aw, generates (or reuses) a data set, then for
// each row runs aw and a peer tool alternately on the same data: a warm-up,
// then N runs of each. It prints the medians, their ratio against the
// row's target, aw's peak RSS where the row bounds memory, and refuses to
// count a figure whose output is not equivalent to the peer's.
//
// It is a measuring tool, not a test: it never fails `go test`. It exits 1
// when a row fails its target or its equivalence check, so a person (or a
// scheduled job) can see regressions.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
)

type options struct {
	data    string
	runs    int
	warmup  int
	rows    string
	files   int
	bigMiB  int
	aw      string
	verbose bool
}

func main() {
	var o options
	flag.StringVar(&o.data, "data", "", "data directory to reuse (generated there when missing); default: a fresh temp dir, removed afterwards")
	flag.IntVar(&o.runs, "runs", 7, "measured runs of each side per row")
	flag.IntVar(&o.warmup, "warmup", 1, "warm-up runs of each side per row (not measured; their output is checked)")
	flag.StringVar(&o.rows, "rows", "", "comma-separated rows to run (default all): "+strings.Join(rowNames(), ","))
	flag.IntVar(&o.files, "files", 50000, "files in the source tree (not counting the ignored node_modules)")
	flag.IntVar(&o.bigMiB, "big-mib", 1024, "size of the large text file in MiB")
	flag.StringVar(&o.aw, "aw", "", "use this aw binary instead of building ./cmd/aw")
	flag.BoolVar(&o.verbose, "v", false, "print every run's time on stderr")
	flag.Parse()
	if flag.NArg() > 0 {
		fatalf("unexpected argument %q; see -h", flag.Arg(0))
	}
	if o.runs < 1 || o.warmup < 0 {
		fatalf("-runs must be at least 1 and -warmup at least 0")
	}
	os.Exit(run(o))
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	os.Exit(2)
}

func logf(format string, args ...any) { fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...) }

func run(o options) int {
	selected, err := selectRows(o.rows)
	if err != nil {
		fatalf("%v", err)
	}
	work, err := os.MkdirTemp("", "aw-bench-")
	if err != nil {
		fatalf("%v", err)
	}
	defer os.RemoveAll(work)

	awBin := o.aw
	if awBin == "" {
		awBin = filepath.Join(work, "aw")
		logf("building aw (go build -trimpath -ldflags='-s -w', as goreleaser does)")
		if err := goBuild(".", awBin, "./cmd/aw"); err != nil {
			fatalf("building aw: %v", err)
		}
	} else if awBin, err = filepath.Abs(awBin); err != nil {
		fatalf("%v", err)
	}

	dataDir := o.data
	if dataDir == "" {
		dataDir = filepath.Join(work, "data")
	}
	if dataDir, err = filepath.Abs(dataDir); err != nil {
		fatalf("%v", err)
	}
	start := time.Now()
	d, err := prepareData(dataDir, o.files, o.bigMiB)
	if err != nil {
		fatalf("preparing data in %s: %v", dataDir, err)
	}
	logf("data ready in %s (%s)", dataDir, time.Since(start).Round(time.Millisecond))

	b := &bench{o: o, aw: awBin, d: d}
	var results []result
	var notes []string
	failed := false
	for _, r := range allRows(b) {
		if !selected[r.name] {
			continue
		}
		logf("row %s", r.name)
		res := b.measure(r)
		results = append(results, res)
		if r.name == "startup" {
			note, ok := b.initTrace()
			notes = append(notes, note)
			failed = failed || !ok
		}
	}
	printTable(results, notes, o)
	if failed {
		return 1
	}
	for _, r := range results {
		if r.status == "FAIL" {
			return 1
		}
	}
	return 0
}

func selectRows(list string) (map[string]bool, error) {
	sel := map[string]bool{}
	if list == "" {
		for _, n := range rowNames() {
			sel[n] = true
		}
		return sel, nil
	}
	known := map[string]bool{}
	for _, n := range rowNames() {
		known[n] = true
	}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if !known[n] {
			return nil, fmt.Errorf("unknown row %q: the rows are %s", n, strings.Join(rowNames(), ", "))
		}
		sel[n] = true
	}
	return sel, nil
}

// goBuild builds pkg (relative to dir) the way a release is built.
func goBuild(dir, out, pkg string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

func printTable(results []result, notes []string, o options) {
	fmt.Printf("aw benchmark: %d runs per side after %d warm-up, medians; ratio = aw / peer (lower is better)\n\n", o.runs, o.warmup)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "row\taw\tpeer\tpeer median\tratio\ttarget\tresult\taw peak RSS\tnote")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			r.name, dur(r.awMedian), r.peer, dur(r.peerMedian), ratio(r), target(r), r.status, rss(r), clip(r.note))
	}
	tw.Flush()
	for _, n := range notes {
		if n != "" {
			fmt.Println()
			fmt.Println(n)
		}
	}
}

func dur(d time.Duration) string {
	switch {
	case d == 0:
		return "-"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0fµs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func ratio(r result) string {
	if r.awMedian == 0 || r.peerMedian == 0 {
		return "-"
	}
	if r.maxDiff > 0 {
		return "+" + dur(r.awMedian-r.peerMedian) // a difference row
	}
	return fmt.Sprintf("%.2fx", float64(r.awMedian)/float64(r.peerMedian))
}

func target(r result) string {
	if r.maxDiff > 0 {
		return "+<= " + dur(r.maxDiff)
	}
	return fmt.Sprintf("<= %.1fx", r.target)
}

func rss(r result) string {
	if !r.showRSS || r.awRSS == 0 {
		return "-"
	}
	s := fmt.Sprintf("%.1f MiB", float64(r.awRSS)/(1<<20))
	if r.rssLimit > 0 {
		s += fmt.Sprintf(" (< %d MiB)", r.rssLimit>>20)
	}
	return s
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
