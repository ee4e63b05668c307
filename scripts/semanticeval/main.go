// Command semanticeval measures aw inspect semantic-search on a copy of
// GOROOT/src: ranking quality (MRR@10 and recall@10 over a set of
// natural-language questions, each with the files a Go maintainer would
// expect) against a keyword baseline measured in the same run (rg on the
// question's words, files ranked by match count), and speed (index build,
// one query as a CLI process, re-index after editing 10 files, index size).
//
//	scripts/semantic-eval                          # build aw, copy GOROOT/src, run everything
//	scripts/semantic-eval -queries my.json -v      # another query set, per-query ranks
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

type query struct {
	Q    string   `json:"q"`
	Want []string `json:"want"`
}

func main() {
	var (
		queries = flag.String("queries", "scripts/semanticeval/queries.json", "query set: [{q, want: [paths relative to GOROOT/src]}]")
		tree    = flag.String("tree", "", "a writable copy of GOROOT/src to reuse (default: a fresh copy in a temp dir)")
		awBin   = flag.String("aw", "", "aw binary (default: built from ./cmd/aw)")
		runs    = flag.Int("runs", 7, "runs of each speed measurement (the median is reported)")
		verbose = flag.Bool("v", false, "print each query's ranks")
		quality = flag.Bool("quality-only", false, "measure ranking only (reuse the tree's index; no speed figures)")
	)
	flag.Parse()
	if err := run(*queries, *tree, *awBin, *runs, *verbose, *quality); err != nil {
		fmt.Fprintln(os.Stderr, "semanticeval:", err)
		os.Exit(1)
	}
}

func run(queriesPath, tree, awBin string, runs int, verbose, qualityOnly bool) error {
	raw, err := os.ReadFile(queriesPath)
	if err != nil {
		return err
	}
	var qs []query
	if err := json.Unmarshal(raw, &qs); err != nil {
		return fmt.Errorf("%s: %v", queriesPath, err)
	}
	if _, err := exec.LookPath("rg"); err != nil {
		return fmt.Errorf("the baseline needs ripgrep: run scripts/test-deps (or apt-get install ripgrep)")
	}
	tmp, err := os.MkdirTemp("", "semanticeval")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if awBin == "" {
		awBin = filepath.Join(tmp, "aw")
		if out, err := exec.Command("go", "build", "-o", awBin, "./cmd/aw").CombinedOutput(); err != nil {
			return fmt.Errorf("go build: %v\n%s", err, out)
		}
	}
	if tree == "" {
		goroot, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return err
		}
		tree = filepath.Join(tmp, "src")
		if out, err := exec.Command("cp", "-r", filepath.Join(strings.TrimSpace(string(goroot)), "src"), tree).CombinedOutput(); err != nil {
			return fmt.Errorf("copying GOROOT/src: %v\n%s", err, out)
		}
	}
	for _, q := range qs {
		for _, w := range q.Want {
			if _, err := os.Stat(filepath.Join(tree, w)); err != nil {
				return fmt.Errorf("query %q expects %s, which is not in this GOROOT", q.Q, w)
			}
		}
	}
	os.MkdirAll(filepath.Join(tree, ".agentic"), 0o755)
	aw := func(args ...string) ([]byte, time.Duration, error) {
		cmd := exec.Command(awBin, append([]string{"--root", tree, "-o", "json"}, args...)...)
		cmd.Dir = tree
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(tmp, "config"))
		start := time.Now()
		out, err := cmd.Output()
		return out, time.Since(start), err
	}

	// Speed: the build from scratch.
	var builds []time.Duration
	for i := 0; i < max(1, runs/3) && !qualityOnly; i++ {
		out, d, err := aw("inspect", "index", "rebuild")
		if err != nil {
			return fmt.Errorf("index rebuild: %v\n%s", err, out)
		}
		builds = append(builds, d)
	}

	// Quality.
	var awRR, rgRR, awRec, rgRec float64
	var queryTimes []time.Duration
	if verbose {
		fmt.Printf("%-70s %6s %6s\n", "query", "aw", "rg")
	}
	for _, q := range qs {
		out, d, err := aw("inspect", "semantic-search", q.Q, "--limit", "10")
		if err != nil {
			return fmt.Errorf("semantic-search %q: %v\n%s", q.Q, err, out)
		}
		queryTimes = append(queryTimes, d)
		var env struct {
			Data struct {
				Results []struct {
					Path string `json:"path"`
				} `json:"results"`
			} `json:"data"`
		}
		if err := json.Unmarshal(out, &env); err != nil {
			return err
		}
		var awFiles []string
		for _, r := range env.Data.Results {
			awFiles = append(awFiles, r.Path)
		}
		rgFiles, err := baseline(tree, q.Q)
		if err != nil {
			return err
		}
		ar, arec := score(dedupe(awFiles), q.Want)
		br, brec := score(rgFiles, q.Want)
		awRR += rr(ar)
		rgRR += rr(br)
		awRec += arec
		rgRec += brec
		if verbose {
			fmt.Printf("%-70s %6s %6s\n", clip(q.Q, 70), rankText(ar), rankText(br))
		}
	}
	n := float64(len(qs))
	fmt.Printf("quality over %d queries (GOROOT/src, top 10 files):\n", len(qs))
	fmt.Printf("  aw semantic-search  MRR@10 %.3f  recall@10 %.3f\n", awRR/n, awRec/n)
	fmt.Printf("  rg keyword baseline MRR@10 %.3f  recall@10 %.3f\n", rgRR/n, rgRec/n)
	if qualityOnly {
		return nil
	}

	// Speed: a query as a CLI process (index up to date), re-index after
	// editing 10 files, size.
	var qt []time.Duration
	for i := 0; i < runs; i++ {
		_, d, err := aw("inspect", "semantic-search", qs[i%len(qs)].Q)
		if err != nil {
			return err
		}
		qt = append(qt, d)
	}
	var rt []time.Duration
	for i := 0; i < runs; i++ {
		if err := touch(tree, 10, i); err != nil {
			return err
		}
		out, d, err := aw("inspect", "semantic-search", "parse a duration")
		if err != nil || !bytes.Contains(out, []byte(`"changed":10`)) {
			return fmt.Errorf("the query after editing 10 files did not re-index 10: %v %s", err, clip(string(out), 400))
		}
		rt = append(rt, d)
	}
	st, _, err := aw("inspect", "index", "status")
	if err != nil {
		return err
	}
	var status struct {
		Data struct {
			Files, Chunks int
			Bytes         int64
		} `json:"data"`
	}
	json.Unmarshal(st, &status)
	fmt.Printf("speed (median; %d cores):\n", numCPU())
	fmt.Printf("  index build, GOROOT/src          %v\n", median(builds))
	fmt.Printf("  query as a CLI process           %v (all %d quality queries: median %v)\n", median(qt), len(queryTimes), median(queryTimes))
	fmt.Printf("  re-index 10 edited files + query %v\n", median(rt))
	fmt.Printf("  index size on disk               %.1f MiB (%d files, %d chunks)\n", float64(status.Data.Bytes)/(1<<20), status.Data.Files, status.Data.Chunks)
	return nil
}

// touch appends a comment to n Go files (a different line each round, so
// the content hash changes).
func touch(tree string, n, round int) error {
	files := []string{"bufio/bufio.go", "bytes/buffer.go", "errors/errors.go", "fmt/print.go", "io/io.go",
		"os/file.go", "sort/sort.go", "strings/builder.go", "time/time.go", "unicode/letter.go"}
	for _, f := range files[:n] {
		p := filepath.Join(tree, f)
		fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		fmt.Fprintf(fh, "\n// edited by semanticeval round %d\n", round)
		fh.Close()
	}
	return nil
}

var stop = map[string]bool{}

func init() {
	for _, w := range strings.Fields("the a an of to in on for and or is are how does do where what when which with from into by its it as at be that this like way one when get set") {
		stop[w] = true
	}
}

// baseline ranks files by how many times the query's words occur in them
// (rg --count-matches, case-insensitive, literal words).
func baseline(tree, q string) ([]string, error) {
	args := []string{"--count-matches", "-i", "-F", "--no-messages", "-g", "!.agentic"}
	words := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) {
		if len(w) < 3 || stop[w] {
			continue
		}
		args = append(args, "-e", w)
		words++
	}
	if words == 0 {
		return nil, nil
	}
	cmd := exec.Command("rg", append(args, ".")...)
	cmd.Dir = tree
	out, _ := cmd.Output()
	type fc struct {
		path string
		n    int
	}
	var all []fc
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		i := strings.LastIndexByte(l, ':')
		if i < 0 {
			continue
		}
		n, _ := strconv.Atoi(l[i+1:])
		all = append(all, fc{strings.TrimPrefix(l[:i], "./"), n})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].path < all[j].path
	})
	var files []string
	for i := 0; i < len(all) && i < 10; i++ {
		files = append(files, all[i].path)
	}
	return files, nil
}

func dedupe(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// score is the 1-based rank of the first expected file in the top 10 (0:
// none) and the share of expected files in the top 10.
func score(got, want []string) (int, float64) {
	if len(got) > 10 {
		got = got[:10]
	}
	first, found := 0, 0
	for i, g := range got {
		for _, w := range want {
			if g == w {
				found++
				if first == 0 {
					first = i + 1
				}
			}
		}
	}
	return first, float64(found) / float64(len(want))
}

func rr(rank int) float64 {
	if rank == 0 {
		return 0
	}
	return 1 / float64(rank)
}

func rankText(r int) string {
	if r == 0 {
		return "-"
	}
	return strconv.Itoa(r)
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(time.Millisecond)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
