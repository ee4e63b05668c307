package syntax

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// useStore points the tree store at a temporary directory for one test.
func useStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	old := storeBase
	storeBase = func() string { return dir }
	t.Cleanup(func() { storeBase = old })
	return dir
}

// big repeats a snippet past storeMin, so the store keeps its tree.
func big(snippet string) []byte {
	return []byte(strings.Repeat(snippet, storeMin/len(snippet)+1))
}

var storeSources = map[*Language][]byte{
	JavaScript: big("// a comment\nconst a = require('x'); if (a != null) { a.dispose(); }\n"),
	TypeScript: big("function f(a: T | null): void { if (a) { a.dispose(); } }\n"),
	TSX:        big("const e = <B on={go} />;\n"),
	Python:     big("def f():\n    if x:\n        dispose(a)  # why\n"),
	Rust:       big("fn f() { if x { dispose(a); } }\n"),
	Java:       big("class A { void f() { if (x) { dispose(a); } } }\n"),
	C:          big("void f(void) { if (x) { dispose(a, 0); } }\n"),
	Bash:       big("f() { if true; then rm -rf \"$d\"; fi; }\n"),
}

// grammarOf is the grammar behind a tree-sitter language.
func grammarOf(t *testing.T, l *Language) *grammar {
	t.Helper()
	g := grammars[l.ID]
	if g == nil {
		t.Fatalf("no grammar for %s", l.ID)
	}
	if err := g.compile(); err != nil {
		t.Fatal(err)
	}
	return g
}

// shape prints a tree, one node a line, for comparison.
func shape(t *Tree) string {
	var b strings.Builder
	var walk func(n *Node, depth int)
	walk = func(n *Node, depth int) {
		fmt.Fprintf(&b, "%*s%s %v %d-%d %d\n", depth, "", n.Kind, n.Named, n.Start, n.End, len(n.Children))
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(t.Root, 0)
	return b.String()
}

// TestStoreRoundTrip: a tree read back from the store is the tree the
// grammar made, in every language, a broken source's verdict included.
func TestStoreRoundTrip(t *testing.T) {
	useStore(t)
	broken := big("function f( {\n")
	for l, src := range storeSources {
		for _, s := range [][]byte{src, broken} {
			g := grammarOf(t, l)
			want, wantOK, err := g.parse(s)
			if err != nil {
				t.Fatal(err)
			}
			dir := storeDir(l.ID)
			got, ok, found := g.loadTree(dir, storeKey(s), s)
			if !found {
				t.Fatalf("%s: parse stored no tree", l.ID)
			}
			if &s[0] == &broken[0] && (wantOK || !strings.Contains(shape(want), "ERROR")) {
				t.Fatalf("%s: the broken source has no ERROR node", l.ID)
			}
			if ok != wantOK || shape(got) != shape(want) {
				t.Fatalf("%s: the stored tree differs (ok %v, want %v)", l.ID, ok, wantOK)
			}
		}
	}
}

// TestParseReadsTheStore: a stored record is what parse returns, without
// the grammar: a record saved for another tree under a source's key comes
// back as that tree.
func TestParseReadsTheStore(t *testing.T) {
	useStore(t)
	g := grammarOf(t, JavaScript)
	src := storeSources[JavaScript]
	other := big("let b = 1;\n")
	if len(other) > len(src) {
		t.Fatal("the other source must be the shorter")
	}
	ot, _, err := g.run(other)
	if err != nil {
		t.Fatal(err)
	}
	tree := g.tree(ot, src)
	dir := storeDir("javascript")
	saveTree(dir, storeKey(src), tree, false)
	got, ok, err := g.parse(src)
	if err != nil || ok || shape(got) != shape(tree) {
		t.Fatalf("parse did not read the stored record: ok %v err %v", ok, err)
	}
}

// TestStoreSmallSourcesAreParsed: a source under storeMin is never stored.
func TestStoreSmallSourcesAreParsed(t *testing.T) {
	base := useStore(t)
	g := grammarOf(t, JavaScript)
	if _, _, err := g.parse([]byte("require('x');\n")); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(base, filepath.Base(storeDir("javascript")))); len(entries) != 0 {
		t.Fatalf("a small source was stored: %v", entries)
	}
}

// TestStoreDamageIsIgnored: a record that is cut short, altered, of
// another source or grammar, or well-formed but out of the source's range
// is never read as a tree; the grammar parses again and writes it anew.
func TestStoreDamageIsIgnored(t *testing.T) {
	useStore(t)
	g := grammarOf(t, JavaScript)
	src := storeSources[JavaScript]
	want, _, err := g.parse(src)
	if err != nil {
		t.Fatal(err)
	}
	key := storeKey(src)
	path := filepath.Join(storeDir("javascript"), hex.EncodeToString(key[:]))
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// resum recomputes the checksum, so only the structure is wrong.
	resum := func(b []byte) []byte {
		binary.LittleEndian.PutUint32(b[storeHeader-4:], checksum(b[storeHeader:]))
		return b
	}
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	other := sha256.Sum256([]byte("another source"))
	damages := map[string][]byte{
		"empty":           nil,
		"cut in header":   good[:storeHeader-3],
		"cut in body":     good[:len(good)-5],
		"cut, resummed":   edit(func(b []byte) []byte { return resum(b[:len(b)-5]) }),
		"a byte flipped":  edit(func(b []byte) []byte { b[len(b)/2] ^= 0x40; return b }),
		"magic":           edit(func(b []byte) []byte { b[0] = 'x'; return b }),
		"another sum":     edit(func(b []byte) []byte { copy(b[len(storeMagic):], other[:]); return b }),
		"length":          edit(func(b []byte) []byte { b[len(storeMagic)+sha256.Size]++; return b }),
		"verdict":         edit(func(b []byte) []byte { b[len(storeMagic)+sha256.Size+4] = 7; return b }),
		"count too small": edit(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[storeHeader-8:], 3); return b }),
		"count too large": edit(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[storeHeader-8:], 1<<31); return b }),
		"trailing bytes":  edit(func(b []byte) []byte { return resum(append(b, 0)) }),
		// The root's length, its third uvarint, made longer than the source.
		"out of range": edit(func(b []byte) []byte {
			body := b[storeHeader:]
			_, n1 := binary.Uvarint(body)
			_, n2 := binary.Uvarint(body[n1:])
			rest := append([]byte(nil), body[n1+n2:]...)
			_, n3 := binary.Uvarint(rest)
			out := append(append([]byte(nil), b[:storeHeader+n1+n2]...), binary.AppendUvarint(nil, uint64(len(src)+1))...)
			return resum(append(out, rest[n3:]...))
		}),
		"a huge child count": edit(func(b []byte) []byte {
			body := b[storeHeader:]
			n := 0
			for i := 0; i < 3; i++ {
				_, k := binary.Uvarint(body[n:])
				n += k
			}
			_, k := binary.Uvarint(body[n:])
			out := append(append([]byte(nil), b[:storeHeader+n]...), binary.AppendUvarint(nil, 1<<40)...)
			return resum(append(out, body[n+k:]...))
		}),
	}
	for name, bad := range damages {
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, found := g.loadTree(storeDir("javascript"), storeKey(src), src); found {
			t.Errorf("%s: a damaged record was read", name)
		}
		got, _, err := g.parse(src)
		if err != nil || shape(got) != shape(want) {
			t.Errorf("%s: parse after damage: %v", name, err)
		}
		if b, _ := os.ReadFile(path); string(b) != string(good) {
			t.Errorf("%s: the record was not written again", name)
		}
	}
}

// TestStorePrune: the directories of grammars not in this build go, then
// the oldest records until the store is under three quarters of its cap,
// and a temporary file older than an hour; at most once a day.
func TestStorePrune(t *testing.T) {
	base := useStore(t)
	old := storeCap
	storeCap = 10 << 10
	t.Cleanup(func() { storeCap = old })
	now := time.Now()
	stale := filepath.Join(base, "javascript-0000000000000000")
	os.MkdirAll(stale, 0o700)
	os.WriteFile(filepath.Join(stale, "x"), []byte("x"), 0o600)
	dir := storeDir("javascript")
	os.MkdirAll(dir, 0o700)
	write := func(name string, age time.Duration) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, make([]byte, 1<<10), 0o600)
		os.Chtimes(p, now.Add(-age), now.Add(-age))
		return p
	}
	var records []string
	for i := 0; i < 20; i++ {
		records = append(records, write(fmt.Sprintf("r%02d", i), time.Duration(20-i)*time.Minute))
	}
	oldTmp, newTmp := write(".tmp-old", 2*time.Hour), write(".tmp-new", time.Minute)

	prune(base, now)
	if _, err := os.Stat(stale); err == nil {
		t.Error("another grammar's records were kept")
	}
	if _, err := os.Stat(oldTmp); err == nil {
		t.Error("an old temporary file was kept")
	}
	if _, err := os.Stat(newTmp); err != nil {
		t.Error("a recent temporary file (a write under way) was removed")
	}
	kept := 0
	for i, p := range records {
		_, err := os.Stat(p)
		if err == nil {
			kept++
		} else if kept > 0 {
			t.Errorf("record %d went while an older one stayed", i)
		}
	}
	if kept != 7 {
		t.Errorf("kept %d of 20 1 KiB records under a 10 KiB cap", kept)
	}

	// Within a day nothing is pruned again; after it, it is.
	for i := 0; i < 20; i++ {
		write(fmt.Sprintf("s%02d", i), time.Minute)
	}
	prune(base, now.Add(time.Hour))
	if n := count(dir); n < 20 {
		t.Errorf("pruned again within a day: %d left", n)
	}
	prune(base, now.Add(pruneEvery+time.Hour))
	if n := count(dir); int64(n)<<10 > storeCap {
		t.Errorf("not pruned after a day: %d left", n)
	}
}

func count(dir string) int {
	entries, _ := os.ReadDir(dir)
	return len(entries)
}

// TestStoreUnwritable: where the store cannot be made (its path is a
// file), files are parsed as without it.
func TestStoreUnwritable(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "trees")
	os.WriteFile(blocker, []byte("not a directory"), 0o600)
	old := storeBase
	storeBase = func() string { return blocker }
	t.Cleanup(func() { storeBase = old })
	src := storeSources[JavaScript]
	got, ok, err := JavaScript.Parse(src)
	if err != nil || !ok || got.Root == nil || got.Root.End != len(src) {
		t.Fatalf("parse with an unwritable store: ok %v err %v", ok, err)
	}
	if b, _ := os.ReadFile(blocker); string(b) != "not a directory" {
		t.Fatal("the blocking file was changed")
	}
}
