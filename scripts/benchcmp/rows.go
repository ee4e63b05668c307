package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

type bench struct {
	o  options
	aw string
	d  *data
}

// Read windows: the big file's first 2,000 lines; an inner window of the
// 64 KiB file.
const (
	bigWindow            = 2000
	smallStart, smallEnd = 300, 420
)

func rowNames() []string {
	return append([]string{"startup", "startup-git", "read-1g", "read-64k", "search-literal",
		"search-inner-literal", "search-no-literal", "list", "list-fd"}, append(append(append(commandRowNames(), vcsRowNames()...), mcpRowNames()...), astRowNames()...)...)
}

// awSide runs aw against a workspace root, always as JSON.
func (b *bench) awSide(root string, args ...string) side {
	return side{name: "aw", argv: append([]string{b.aw, "--root", root, "-o", "json"}, args...), dir: root,
		env: []string{"AW_ROOT=", "AW_APPROVER_TOKEN="}}
}

func allRows(b *bench) []row {
	d := b.d
	clean := func(root string) func() {
		return func() { os.RemoveAll(filepath.Join(root, ".agentic", "artifacts")) }
	}
	rg := func(args ...string) side {
		return side{name: "rg -n", argv: append([]string{"rg", "-n", "--no-heading", "--color", "never"}, args...), dir: d.tree, okExit: []int{1}}
	}
	fd := "fd"
	if _, err := exec.LookPath("fd"); err != nil {
		if _, err := exec.LookPath("fdfind"); err == nil {
			fd = "fdfind" // Debian's name
		}
	}
	stat := b.awSide(d.tree, "inspect", "stat", "go.mod")
	return append([]row{
		{name: "startup", target: 2.5, aw: stat, showRSS: true,
			peer:  side{name: "go hello-world", argv: []string{d.hello}, dir: d.tree},
			check: checkOK},
		{name: "startup-git", target: 2, aw: stat,
			peer:    side{name: "git --version", argv: []string{"git", "--version"}, dir: d.tree},
			missing: "apt-get install git", check: checkOK},
		{name: "read-1g", target: 1.2, showRSS: true, rssLimit: 64 << 20, after: clean(d.files),
			aw:    b.awSide(d.files, "inspect", "read", "big.txt", "--limit", strconv.Itoa(bigWindow)),
			peer:  side{name: "sha256sum", argv: []string{"sha256sum", "big.txt"}, dir: d.files},
			check: func(aw, peer []byte) error { return checkBigRead(d, aw, peer) }},
		{name: "read-64k", target: 1.5, after: clean(d.files),
			aw:    b.awSide(d.files, "inspect", "read", "small.txt", "--start", strconv.Itoa(smallStart), "--limit", strconv.Itoa(smallEnd-smallStart+1)),
			peer:  side{name: "sed -n 'a,bp'", argv: []string{"sed", "-n", fmt.Sprintf("%d,%dp", smallStart, smallEnd), "small.txt"}, dir: d.files},
			check: checkWindow(smallStart)},
		{name: "search-literal", target: 1.5, missing: "apt-get install ripgrep", after: clean(d.tree), showRSS: true,
			aw:    b.awSide(d.tree, "inspect", "search", "--fixed", "--max-results", "10000000", literalPattern),
			peer:  rg("-F", literalPattern),
			check: checkMatches(d.tree, "rg")},
		{name: "search-inner-literal", target: 2, missing: "apt-get install ripgrep", after: clean(d.tree), showRSS: true,
			aw:    b.awSide(d.tree, "inspect", "search", "--max-results", "10000000", innerPattern),
			peer:  rg(innerPattern),
			check: checkMatches(d.tree, "rg")},
		{name: "search-no-literal", target: 1, missing: "apt-get install git", after: clean(d.tree), showRSS: true,
			aw:    b.awSide(d.tree, "inspect", "search", "--max-results", "10000000", noLiteralPattern),
			peer:  side{name: "git grep -E", argv: []string{"git", "grep", "-n", "-E", "--no-color", noLiteralPattern}, dir: d.tree, okExit: []int{1}},
			check: checkMatches(d.tree, "git grep")},
		{name: "list", target: 1.5, after: clean(d.tree), showRSS: true,
			aw: b.awSide(d.tree, "inspect", "list", "--depth", "5"),
			peer: side{name: "find -maxdepth 5", argv: []string{"find", ".", "-mindepth", "1", "-maxdepth", "5",
				"(", "-name", "node_modules", "-o", "-name", ".git", "-o", "-name", ".agentic", ")", "-prune", "-o", "-print"}, dir: d.tree},
			check: checkList(d.tree)},
		{name: "list-fd", target: 1.5, after: clean(d.tree), missing: "apt-get install fd-find",
			aw: b.awSide(d.tree, "inspect", "list", "--depth", "5"),
			peer: side{name: fd + " -d 5", argv: []string{fd, "--max-depth", "5", "--hidden", "--no-ignore", "--color", "never",
				"--exclude", "node_modules", "--exclude", ".git", "--exclude", ".agentic"}, dir: d.tree},
			check: checkList(d.tree)},
	}, append(append(append(commandRows(b), vcsRows(b)...), mcpRows(b)...), astRows(b)...)...)
}

// awEnvelope is the part of the agentic-workspace/v1 envelope the checks read.
type awEnvelope struct {
	OK        bool   `json:"ok"`
	Operation string `json:"operation"`
	Summary   string `json:"summary"`
	Artifacts []struct {
		Kind string `json:"kind"`
		Path string `json:"path"`
	} `json:"artifacts"`
	Data  json.RawMessage `json:"data"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseEnvelope(out []byte) (*awEnvelope, error) {
	var env awEnvelope
	if err := json.Unmarshal(out, &env); err != nil {
		return nil, fmt.Errorf("aw's stdout is not one envelope: %v", err)
	}
	if !env.OK {
		if env.Error != nil {
			return nil, fmt.Errorf("aw failed: %s: %s", env.Error.Code, env.Error.Message)
		}
		return nil, fmt.Errorf("aw failed: %s", env.Summary)
	}
	return &env, nil
}

func checkOK(aw, peer []byte) error {
	_, err := parseEnvelope(aw)
	return err
}

func checkBigRead(d *data, aw, peer []byte) error {
	env, err := parseEnvelope(aw)
	if err != nil {
		return err
	}
	var rd struct {
		SHA256  string `json:"sha256"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(env.Data, &rd); err != nil {
		return err
	}
	want := strings.Fields(string(peer))
	if len(want) == 0 || rd.SHA256 != want[0] {
		return fmt.Errorf("sha256 %q, sha256sum says %q", rd.SHA256, firstLine(peer))
	}
	f, err := os.Open(d.big)
	if err != nil {
		return err
	}
	defer f.Close()
	var head bytes.Buffer
	sc := bufio.NewScanner(f)
	for n := 0; n < bigWindow && sc.Scan(); n++ {
		head.Write(sc.Bytes())
		head.WriteByte('\n')
	}
	return compareWindow(rd.Content, 1, head.Bytes())
}

// checkWindow compares a read window with `sed -n 'a,bp'`.
func checkWindow(start int) func(aw, peer []byte) error {
	return func(aw, peer []byte) error {
		env, err := parseEnvelope(aw)
		if err != nil {
			return err
		}
		var rd struct {
			Content string `json:"content"`
		}
		if err := json.Unmarshal(env.Data, &rd); err != nil {
			return err
		}
		return compareWindow(rd.Content, start, peer)
	}
}

// compareWindow strips the "%6d\t" gutter from content, checking the line
// numbers count up from start, and compares the text with want.
func compareWindow(content string, start int, want []byte) error {
	got := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	exp := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	if len(got) != len(exp) {
		return fmt.Errorf("aw shows %d lines, the peer %d", len(got), len(exp))
	}
	for i, line := range got {
		num, text, ok := strings.Cut(line, "\t")
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if !ok || err != nil || n != start+i {
			return fmt.Errorf("line %d of the window has no %d gutter: %q", i+1, start+i, clip(line))
		}
		if text != exp[i] {
			return fmt.Errorf("line %d: aw %q, peer %q", n, clip(text), clip(exp[i]))
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return s
}

// checkMatches compares aw's matches with grep-style "path:line:text"
// output as sets of path:line pairs.
func checkMatches(root, peer string) func(aw, out []byte) error {
	return func(aw, out []byte) error {
		env, err := parseEnvelope(aw)
		if err != nil {
			return err
		}
		items, err := listItems(root, env, "matches")
		if err != nil {
			return err
		}
		got := map[string]bool{}
		for _, it := range items {
			var m struct {
				Path string `json:"path"`
				Line int    `json:"line"`
			}
			if err := json.Unmarshal(it, &m); err != nil {
				return fmt.Errorf("a match is not {path, line, ...}: %s", clip(string(it)))
			}
			got[m.Path+":"+strconv.Itoa(m.Line)] = true
		}
		want := map[string]bool{}
		for _, line := range strings.Split(string(out), "\n") {
			if m := matchLine.FindStringSubmatch(line); m != nil {
				want[strings.TrimPrefix(m[1], "./")+":"+m[2]] = true
			}
		}
		if len(want) == 0 {
			return fmt.Errorf("%s found nothing: the data set is wrong", peer)
		}
		return compareSets("matches", got, want, peer)
	}
}

// checkList compares aw's entries with find/fd's paths.
func checkList(root string) func(aw, out []byte) error {
	return func(aw, out []byte) error {
		env, err := parseEnvelope(aw)
		if err != nil {
			return err
		}
		items, err := listItems(root, env, "entries")
		if err != nil {
			return err
		}
		got := map[string]bool{}
		for _, it := range items {
			var e struct {
				Path string `json:"path"`
			}
			if err := json.Unmarshal(it, &e); err != nil {
				return fmt.Errorf("an entry is not {path, type, ...}: %s", clip(string(it)))
			}
			got[strings.TrimSuffix(e.Path, "/")] = true
		}
		want := map[string]bool{}
		for _, line := range strings.Split(string(out), "\n") {
			if line = strings.TrimSuffix(strings.TrimPrefix(line, "./"), "/"); line != "" && line != "." {
				want[line] = true
			}
		}
		return compareSets("paths", got, want, "the peer")
	}
}

func compareSets(what string, got, want map[string]bool, peer string) error {
	var missing, extra []string
	for k := range want {
		if !got[k] {
			missing = append(missing, k)
		}
	}
	for k := range got {
		if !want[k] {
			extra = append(extra, k)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return nil
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return fmt.Errorf("aw has %d %s, %s %d: %d missing %v, %d extra %v",
		len(got), what, peer, len(want), len(missing), head(missing), len(extra), head(extra))
}

func head(s []string) []string {
	if len(s) > 3 {
		return append(s[:3:3], "...")
	}
	return s
}

// listItems returns the full list data.<key> of an envelope. aw bounds what
// it prints inline and spills the rest to an artifact under
// .agentic/artifacts/, so the artifact wins when there is one. Artifacts are
// read as JSON (the envelope, its data, or the bare list), JSON lines, or
// the text forms inspect writes (search.txt, list.tsv).
func listItems(root string, env *awEnvelope, key string) ([]json.RawMessage, error) {
	var inline struct {
		Items     []json.RawMessage `json:"-"`
		Truncated bool              `json:"truncated"`
	}
	var data map[string]json.RawMessage
	if err := json.Unmarshal(env.Data, &data); err != nil {
		return nil, fmt.Errorf("data is not an object: %v", err)
	}
	json.Unmarshal(data[key], &inline.Items)
	json.Unmarshal(data["truncated"], &inline.Truncated)
	for _, a := range env.Artifacts {
		raw, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(a.Path)))
		if err != nil {
			return nil, fmt.Errorf("artifact %s: %v", a.Path, err)
		}
		if items, ok := itemsFrom(raw, key); ok {
			return items, nil
		}
	}
	if len(env.Artifacts) > 0 {
		return nil, fmt.Errorf("no artifact of %s holds data.%s as JSON or JSON lines", env.Operation, key)
	}
	if inline.Truncated {
		return nil, fmt.Errorf("data.truncated is true and there is no artifact: aw dropped results (raise its limits in the bench config)")
	}
	return inline.Items, nil
}

func itemsFrom(raw []byte, key string) ([]json.RawMessage, bool) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		return list, true
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		if v, ok := obj[key]; ok && json.Unmarshal(v, &list) == nil {
			return list, true
		}
		if v, ok := obj["data"]; ok {
			return itemsFrom(v, key)
		}
		return nil, false
	}
	lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	if len(raw) == 0 {
		return nil, false
	}
	// JSON lines: one item per line.
	if lines[0][0] == '{' {
		for _, line := range lines {
			if !json.Valid(line) {
				return nil, false
			}
			list = append(list, json.RawMessage(line))
		}
		return list, true
	}
	// The text forms aw writes: search.txt "path:line:text", list.tsv
	// "type\tsize\tdepth\tpath" after a header line.
	switch key {
	case "matches":
		for _, line := range lines {
			m := matchLine.FindSubmatch(line)
			if m == nil {
				return nil, false
			}
			item, _ := json.Marshal(map[string]any{"path": string(m[1]), "line": atoi(string(m[2]))})
			list = append(list, item)
		}
		return list, true
	case "entries":
		if !bytes.HasPrefix(lines[0], []byte("type\t")) {
			return nil, false
		}
		for _, line := range lines[1:] {
			f := strings.SplitN(string(line), "\t", 4)
			if len(f) != 4 {
				return nil, false
			}
			item, _ := json.Marshal(map[string]any{"type": f[0], "path": f[3]})
			list = append(list, item)
		}
		return list, true
	}
	return nil, false
}

// matchLine is "path:line:text" (the first ":<digits>:" ends the path).
var matchLine = regexp.MustCompile(`^(.*?):([0-9]+):`)

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

var initLine = regexp.MustCompile(`^init (\S+) @\S+ ms, ([0-9.]+) ms clock`)

// initTrace runs the start-up command with GODEBUG=inittrace=1 and reports
// the package inits that take longest (median over the runs).
func (b *bench) initTrace() (string, bool) {
	s := b.awSide(b.d.tree, "inspect", "stat", "go.mod")
	s.env = append(s.env, "GODEBUG=inittrace=1")
	clocks := map[string][]time.Duration{}
	for i := 0; i < max(b.o.runs, 3); i++ {
		out, err := s.run()
		if err != nil {
			return "init trace: " + err.Error(), false
		}
		for _, line := range strings.Split(string(out.stderr), "\n") {
			if m := initLine.FindStringSubmatch(line); m != nil {
				ms, _ := strconv.ParseFloat(m[2], 64)
				clocks[m[1]] = append(clocks[m[1]], time.Duration(ms*float64(time.Millisecond)))
			}
		}
	}
	type pkg struct {
		name string
		d    time.Duration
	}
	var pkgs []pkg
	var total time.Duration
	for name, ds := range clocks {
		pkgs = append(pkgs, pkg{name, median(ds)})
		total += median(ds)
	}
	if len(pkgs) == 0 {
		return "init trace: GODEBUG=inittrace=1 printed nothing", false
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].d > pkgs[j].d })
	verdict := "pass"
	if pkgs[0].d > 500*time.Microsecond {
		verdict = "FAIL"
	}
	var b2 strings.Builder
	fmt.Fprintf(&b2, "package init (GODEBUG=inittrace=1, median of %d runs): %d packages, %s in all; slowest %s %s (target <= 0.5ms): %s\n",
		max(b.o.runs, 3), len(pkgs), dur(total), pkgs[0].name, dur(pkgs[0].d), verdict)
	for _, p := range pkgs[1:min(5, len(pkgs))] {
		fmt.Fprintf(&b2, "  next: %s %s\n", p.name, dur(p.d))
	}
	return strings.TrimSuffix(b2.String(), "\n"), verdict == "pass"
}
