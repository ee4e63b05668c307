package inspect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/workspace"
)

func openWS(t testing.TB, files map[string]string) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(workspace.Options{Root: dir, Tier: workspace.TierExec})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestReadWindow(t *testing.T) {
	ws := openWS(t, map[string]string{
		"f.txt":   "one\ntwo\nthree\n",
		"u.txt":   "añb\n",
		"one.txt": strings.Repeat("x", 50),
	})
	cases := []struct {
		req               ReadRequest
		content           string
		end               int64
		truncated, capped bool
	}{
		{ReadRequest{Path: "f.txt"}, "     1\tone\n     2\ttwo\n     3\tthree\n", 3, false, false},
		{ReadRequest{Path: "f.txt", StartLine: 2, Limit: 1}, "     2\ttwo\n", 2, true, false},
		{ReadRequest{Path: "f.txt", StartLine: 3}, "     3\tthree\n", 3, false, false},
		{ReadRequest{Path: "f.txt", MaxBytes: 11}, "     1\tone\n", 1, true, true},
		{ReadRequest{Path: "f.txt", MaxBytes: 12}, "     1\tone\n ", 2, true, true},
		{ReadRequest{Path: "f.txt", MaxBytes: 3}, "   ", 1, true, true},
		{ReadRequest{Path: "u.txt", MaxBytes: 9}, "     1\ta", 1, true, true},   // ñ is 2 bytes: not split
		{ReadRequest{Path: "u.txt", MaxBytes: 10}, "     1\tañ", 1, true, true}, //
		{ReadRequest{Path: "one.txt", MaxBytes: 10}, "     1\txxx", 1, true, true},
		{ReadRequest{Path: "f.txt", StartLine: 4}, "", 3, false, false},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			env, err := Read(context.Background(), ws, &c.req)
			if err != nil {
				t.Fatal(err)
			}
			d := env.Data.(*ReadData)
			if d.Content != c.content || d.EndLine != c.end || d.Truncated != c.truncated || d.BytesCapped != c.capped {
				t.Fatalf("got %q end %d truncated %v capped %v", d.Content, d.EndLine, d.Truncated, d.BytesCapped)
			}
		})
	}
}

// Reads one after another share pooled buffers: each sees its own file
// whole, whatever the sizes before it (a serial read grows its buffer to a
// full chunk for a file over one).
func TestReadsShareBuffers(t *testing.T) {
	var mid strings.Builder
	for i := 1; i <= 120000; i++ { // about 1.3 MiB: past one chunk
		fmt.Fprintf(&mid, "m%d\n", i)
	}
	files := map[string]string{"small.txt": "s1\ns2\n", "mid.txt": mid.String(), "tiny.txt": "t", "non-ascii.txt": "é1\n2é\n"}
	ws := openWS(t, files)
	for _, name := range []string{"mid.txt", "small.txt", "mid.txt", "tiny.txt", "non-ascii.txt", "small.txt"} {
		env, err := Read(context.Background(), ws, &ReadRequest{Path: name, Limit: 200000})
		if err != nil {
			t.Fatal(err)
		}
		d := env.Data.(*ReadData)
		sum := sha256.Sum256([]byte(files[name]))
		var want strings.Builder
		for i, line := range strings.SplitAfter(files[name], "\n") {
			if line != "" {
				fmt.Fprintf(&want, "%6d\t%s", i+1, line)
			}
		}
		// A window cut at the envelope's bound is a prefix of the file's.
		if d.SHA256 != hex.EncodeToString(sum[:]) || !strings.HasPrefix(want.String(), d.Content) || !d.Truncated && d.Content != want.String() || d.Content == "" {
			t.Fatalf("%s: sha %s, content %.80q; want %.80q", name, d.SHA256, d.Content, want.String())
		}
	}
}

// allASCII finds a byte over 0x7F at any offset, in the eight-byte words
// and in the tail.
func TestAllASCIIAtEveryOffset(t *testing.T) {
	for n := 0; n <= 20; n++ {
		b := []byte(strings.Repeat("a", n))
		if !allASCII(b) {
			t.Fatalf("%d ASCII bytes: not ASCII", n)
		}
		for i := range b {
			c := append([]byte(nil), b...)
			c[i] = 0x80
			if allASCII(c) {
				t.Errorf("0x80 at %d of %d: ASCII", i, n)
			}
		}
	}
}

// TestReadLargeFile crosses the chunk boundaries of the parallel stream.
func TestReadLargeFile(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 400000; i++ {
		fmt.Fprintf(&b, "line %d\r\n", i)
	}
	body := b.String()
	ws := openWS(t, map[string]string{"big.txt": body})
	env, err := Read(context.Background(), ws, &ReadRequest{Path: "big.txt", StartLine: 250000, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	d := env.Data.(*ReadData)
	sum := sha256.Sum256([]byte(body))
	if d.Content != "250000\tline 250000\n250001\tline 250001\n" || d.TotalLines != 400000 || d.SHA256 != hex.EncodeToString(sum[:]) || d.LineEnding != "crlf" {
		t.Fatalf("got %q total %d", d.Content, d.TotalLines)
	}
}

func TestRequiredLiteral(t *testing.T) {
	cases := map[string]string{
		`foo`:              "foo",
		`[A-Z]+_SUSPEND`:   "_SUSPEND",
		`func \w+\(x int`:  "(x int",
		`(ab|cd)ef`:        "ef",
		`a*`:               "",
		`(?:hello)+worlds`: "worlds",
		`x{2,}`:            "x",
	}
	for pat, want := range cases {
		re, err := syntax.Parse(pat, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := requiredLiteral(re.Simplify()); got != want {
			t.Errorf("%s: %q, want %q", pat, got, want)
		}
	}
}

// TestMatcherAgreesWithRegexp checks the prefiltered search against a
// plain line-by-line regexp on the same text.
func TestMatcherAgreesWithRegexp(t *testing.T) {
	text := "alpha BETA\nbeta_suspend X_SUSPEND\n\nKelvin \u212a k\nfoo(x int) bar\r\nlast line no newline beta"
	lines := strings.Split(text, "\n")
	for _, c := range []struct {
		pat         string
		fixed, fold bool
	}{
		{"beta", false, false}, {"beta", false, true}, {"beta", true, true}, {"[A-Z]+_SUSPEND", false, false},
		{"k", false, true}, {"^$", false, false}, {"bar$", false, false}, {`\s`, false, false}, {"(x int)", true, false},
		{"line", false, false}, {"[^a]+", false, false},
	} {
		m, err := compileMatcher(c.pat, c.fixed, c.fold)
		if err != nil {
			t.Fatal(err)
		}
		s := &searcher{m: m, res: &resultSet{limit: 1000}}
		got, _ := s.region(nil, "f", []byte(text), 1, true)
		expr := c.pat
		if c.fixed {
			expr = regexp.QuoteMeta(expr)
		}
		if c.fold {
			expr = "(?i)" + expr
		}
		re := regexp.MustCompile(expr)
		var want []string
		for i, l := range lines {
			if loc := re.FindStringIndex(l); loc != nil {
				want = append(want, fmt.Sprintf("%d:%d", i+1, loc[0]+1))
			}
		}
		var have []string
		for _, g := range got {
			have = append(have, fmt.Sprintf("%d:%d", g.Line, g.Column))
		}
		if strings.Join(have, " ") != strings.Join(want, " ") {
			t.Errorf("%q fixed=%v fold=%v: got %v, want %v", c.pat, c.fixed, c.fold, have, want)
		}
	}
}

func TestIndexFoldASCII(t *testing.T) {
	for _, c := range []struct {
		hay, needle string
		want        int
	}{
		{"xxHeLLo", "hello", 2}, {"hello", "hello", 0}, {"hell", "hello", -1}, {"a_B", "_b", 1}, {"", "a", -1},
	} {
		if got := indexFoldASCII([]byte(c.hay), []byte(c.needle)); got != c.want {
			t.Errorf("%q in %q: %d, want %d", c.needle, c.hay, got, c.want)
		}
	}
}

func TestListBreadthFirst(t *testing.T) {
	ws := openWS(t, map[string]string{"b/x.txt": "x", "a/y/z.txt": "zz", "c.txt": "c", "node_modules/m.js": "", ".env": "s"})
	env, err := List(context.Background(), ws, &ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range env.Data.(*ListData).Entries {
		got = append(got, fmt.Sprintf("%s:%s:%d:%d", e.Path, e.Type, e.Size, e.Depth))
	}
	want := "a:directory:0:1 b:directory:0:1 c.txt:file:1:1 a/y:directory:0:2 b/x.txt:file:1:2 a/y/z.txt:file:2:3"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %s", strings.Join(got, " "))
	}
	ws.Settings.List.MaxEntries = 2
	env, _ = List(context.Background(), ws, &ListRequest{})
	if d := env.Data.(*ListData); !d.Truncated || len(d.Entries) != 2 {
		t.Fatalf("maxEntries: %+v", d)
	}
}

func openAt(root string) (*workspace.Workspace, error) {
	return workspace.Open(workspace.Options{Root: root, Tier: workspace.TierExec})
}

func TestAppendGutterIsPrintfWidth6(t *testing.T) {
	for _, n := range []int64{1, 42, 99999, 999999, 1000000, 123456789} {
		if got, want := string(appendGutter(nil, n)), fmt.Sprintf("%6d\t", n); got != want {
			t.Errorf("appendGutter(%d) = %q, want %q", n, got, want)
		}
	}
}
