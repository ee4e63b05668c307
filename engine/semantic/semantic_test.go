package semantic

import (
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

func words(s string) []string {
	var out []string
	var buf []byte
	scanRuns([]byte(s), func(run []byte) {
		buf = splitIdent(run, buf, func(w []byte) { out = append(out, string(w)) })
	})
	return out
}

func TestSplitIdent(t *testing.T) {
	for in, want := range map[string]string{
		"ParseDuration":      "parse duration",
		"parse_duration":     "parse duration",
		"HTTPServer":         "http server",
		"parseRFC3339":       "parse rfc 3339",
		"utf8.DecodeRune":    "utf 8 decode rune",
		"__init__":           "init",
		"x":                  "x",
		"getHTTPResponseURL": "get http response url",
	} {
		if got := strings.Join(words(in), " "); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestStemJoinsInflections(t *testing.T) {
	for _, group := range [][]string{
		{"parse", "parses", "parsed", "parsing"},
		{"timestamp", "timestamps"},
		{"connect", "connection", "connections", "connected", "connecting"},
		{"allocate", "allocation", "allocated", "allocates"},
		{"encode", "encoding", "encoded"},
		{"directory", "directories"},
		{"wrap", "wrapped", "wrapping"},
	} {
		want := stemString(group[0])
		for _, w := range group[1:] {
			if got := stemString(w); got != want {
				t.Errorf("stem(%q) = %q, stem(%q) = %q", w, got, group[0], want)
			}
		}
	}
	if stemString("3339") != "3339" || stemString("gzip") != "gzip" {
		t.Error("digits and short words are kept")
	}
}

func TestQueryTerms(t *testing.T) {
	var got []string
	for _, q := range queryTerms("Where is the directory of ParseDuration?") {
		got = append(got, q.text)
	}
	for _, want := range []string{"directory", "dir", stemString("parse"), stemString("duration"), "parseduration"} {
		if !slices.Contains(got, want) {
			t.Errorf("terms %v lack %q", got, want)
		}
	}
	for _, stop := range []string{"where", "is", "the", "of"} {
		if slices.Contains(got, stop) {
			t.Errorf("terms %v hold the stop word %q", got, stop)
		}
	}
}

func TestGoDecls(t *testing.T) {
	src := "package p\n\nimport \"fmt\"\n\n// Hello greets.\n// It says hello.\nfunc Hello() {\n\ts := `\nfunc NotADecl() {\n`\n\tfmt.Println(s, \"}\", '{')\n}\n\n/* block\nfunc Nope() {}\n*/\ntype (\n\t// T is a thing.\n\tT struct{}\n)\n\nfunc (r *Reader[T]) Read(p []byte) {}\n\nvar x = func() {\n}\n"
	cs := chunkFile(langGo, []byte(src))
	var got []string
	for _, c := range cs {
		got = append(got, c.symbol)
	}
	want := []string{"", "Hello", "T", "Reader.Read", "x"}
	if !slices.Equal(got, want) {
		t.Fatalf("symbols %q, want %q", got, want)
	}
	if cs[1].start != 5 || cs[1].end < 12 || string([]byte(src)[cs[1].doc[0]:cs[1].doc[1]]) != "// Hello greets.\n// It says hello.\n" {
		t.Errorf("Hello chunk: %+v", cs[1])
	}
}

func TestLongDeclarationsAreWindowed(t *testing.T) {
	src := "package p\n\nvar table = []int{\n" + strings.Repeat("\t1,\n", 500) + "}\n"
	cs := chunkFile(langGo, []byte(src))
	if len(cs) < 5 || cs[1].symbol != "table" || cs[2].symbol != "table" || cs[len(cs)-1].end != 504 {
		t.Fatalf("windows: %+v", cs)
	}
}

// TestDamagedSegmentNeverPanics flips bytes of a real segment: opening it
// either fails its checks or every read of it stays in range.
func TestDamagedSegmentNeverPanics(t *testing.T) {
	a := newAnalyzer()
	var files []analyzedFile
	for _, p := range []string{"a/x.go", "b/y.go", "c/z.py"} {
		src := "package p\n\n// Frobnicate turns widgets.\nfunc Frobnicate() {}\n\n// Twiddle spins knobs.\nfunc Twiddle() {}\n"
		files = append(files, a.file(fileEntry{path: p}, []byte(src)))
	}
	data := encodeSegment(files)
	if _, err := openSegment(data); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	opened := 0
	for i := 0; i < 3000; i++ {
		d := slices.Clone(data)
		for k := 0; k < 1+rng.Intn(4); k++ {
			d[rng.Intn(len(d))] ^= byte(1 + rng.Intn(255))
		}
		if rng.Intn(10) == 0 {
			d = d[:rng.Intn(len(d))]
		}
		s, err := openSegment(d)
		if err != nil {
			continue
		}
		opened++
		for _, term := range []string{"frobnic", "twiddl", "widget", "knob", "zzz"} {
			list, _ := s.lookup(term)
			s.eachPosting(list, func(c uint32, tf *[nFields]uint8) {
				ci := s.chunk(c)
				s.filePath(ci.file)
				s.fileChunks(ci.file)
			})
		}
	}
	if opened == 0 {
		t.Error("no damaged segment passed the checks: the reads were never exercised")
	}
}

func TestManifestRoundTripAndDamage(t *testing.T) {
	m := &manifest{base: ".", builtAt: 42, nextSeg: 3, segments: []uint32{1, 2}, files: map[string]*fileEntry{
		"a.go": {path: "a.go", size: 10, mtime: 99, ino: 7, seg: 1, chunks: 2},
	}}
	raw := m.encode()
	got, err := decodeManifest(raw)
	if err != nil || got.files["a.go"].size != 10 || got.nextSeg != 3 || len(got.segments) != 2 {
		t.Fatalf("round trip: %+v %v", got, err)
	}
	for i := range raw {
		d := slices.Clone(raw)
		d[i] ^= 0x20
		if _, err := decodeManifest(d); err == nil {
			t.Errorf("a flipped byte %d was not noticed", i)
		}
	}
}

// A segment truncated under its mapping faults when read; guarded turns
// the fault into a report (Search then rebuilds), never a crash.
func TestTruncatedMappingFaultIsRecovered(t *testing.T) {
	a := newAnalyzer()
	src := "package p\n\n// Frobnicate turns widgets.\nfunc Frobnicate() {}\n"
	data := encodeSegment([]analyzedFile{a.file(fileEntry{path: "a/x.go"}, []byte(strings.Repeat(src, 2000)))})
	p := filepath.Join(t.TempDir(), "seg")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	b, unmap, err := store.MapFile(p)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	sum := 0
	faulted := guarded(func() {
		for _, c := range b {
			sum += int(c)
		}
	})
	if !faulted {
		t.Fatalf("reading a truncated mapping did not fault (sum %d)", sum)
	}
	if guarded(func() { sum++ }) {
		t.Error("a read that cannot fault was reported as one")
	}
}

// A damaged vectors cache is dropped, never trusted: a dimension that
// would overflow its byte count, or more than the file holds, reads as an
// empty cache.
func TestDamagedVectorsCacheIsDropped(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".agentic"), 0o755)
	ws, err := workspace.Open(workspace.Options{Root: root, Tier: workspace.TierExec})
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(indexPath(ws, vectorsName)), 0o755)
	for _, dim := range []uint64{1<<62 + 1, 1000} {
		rec := binary.AppendUvarint([]byte(vectorsMagic), 1)
		rec = append(rec, make([]byte, 16)...)
		rec = binary.AppendUvarint(rec, dim)
		rec = append(rec, 0, 0, 0, 0)
		if err := os.WriteFile(indexPath(ws, vectorsName), rec, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := loadVectors(ws); len(got) != 0 {
			t.Errorf("dim %d: %d vectors read from a damaged cache", dim, len(got))
		}
	}
}
