package snapshot_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/inspect"
	"github.com/agentic-workspace/aw/engine/snapshot"
	"github.com/agentic-workspace/aw/engine/workspace"
)

var _ = inspect.Files // links the walk snapshot.Walk names

// tree writes n small files in 50 directories and opens the workspace.
func tree(t testing.TB, n int) *workspace.Workspace {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%50), fmt.Sprintf("f%05d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package p\n// %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.Open(workspace.Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// BenchmarkRescan is the scan of an unchanged tree against its previous
// manifest: the cost every command pays twice when nothing changed.
func BenchmarkRescan(b *testing.B) {
	ws := tree(b, 5000)
	s := snapshot.Open(ws)
	lim := snapshot.LimitsOf(ws)
	first, err := s.Scan(context.Background(), ws, nil, lim)
	if err != nil {
		b.Fatal(err)
	}
	s.Save(first)
	time.Sleep(2100 * time.Millisecond) // past the racy window
	second, _ := s.Scan(context.Background(), ws, s.Latest(), lim)
	s.Save(second)
	prev := s.Latest()
	if prev.Racy != 0 {
		b.Fatalf("%d racy entries after the window", prev.Racy)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := s.Scan(context.Background(), ws, prev, lim)
		if err != nil || len(m.Entries) != 5050 { // 5,000 files in 50 directories
			b.Fatal(err, len(m.Entries))
		}
	}
}

// BenchmarkLatest is reading the manifest of a 5,000-file tree.
func BenchmarkLatest(b *testing.B) {
	ws := tree(b, 5000)
	s := snapshot.Open(ws)
	m, _ := s.Scan(context.Background(), ws, nil, snapshot.LimitsOf(ws))
	s.Save(m)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if s.Latest() == nil {
			b.Fatal("no manifest")
		}
	}
}

// A manifest comes back exactly as saved, and one damaged anywhere (or
// cut short, or of another format) is not trusted.
func TestManifestRoundTrip(t *testing.T) {
	ws := tree(t, 20)
	os.Symlink("d00/f00000.go", filepath.Join(ws.Root, "link"))
	s := snapshot.Open(ws)
	m, err := s.Scan(context.Background(), ws, nil, snapshot.LimitsOf(ws))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(m); err != nil {
		t.Fatal(err)
	}
	got := s.Latest()
	if got == nil || len(got.Entries) != 41 || got.Racy != m.Racy || !got.Taken.Equal(m.Taken) {
		t.Fatalf("round trip: %+v", got)
	}
	for p, e := range m.Entries {
		if g := got.Entries[p]; g == nil || *g != *e {
			t.Errorf("%s: %+v, want %+v", p, g, e)
		}
	}
	if l := got.Entries["link"]; l.Link != "d00/f00000.go" || l.Kept {
		t.Errorf("link entry %+v", l)
	}
	path := filepath.Join(ws.Root, ".agentic", "snapshots", "manifest")
	raw, _ := os.ReadFile(path)
	for _, bad := range [][]byte{raw[:len(raw)-1], append([]byte("aw-snapshot 1\n"), raw[14:]...), flip(raw, len(raw)/2), {}} {
		os.WriteFile(path, bad, 0o644)
		if s.Latest() != nil {
			t.Errorf("a damaged manifest (%d bytes) was trusted", len(bad))
		}
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x40
	return c
}

// A file rewritten within the racy window with its size and mtime put back
// is still seen as changed: a racy entry is hashed again, whatever its
// stat says.
func TestRacyEntryHashedAgain(t *testing.T) {
	ws := tree(t, 3)
	p := filepath.Join(ws.Root, "d00", "f00000.go")
	s := snapshot.Open(ws)
	lim := snapshot.LimitsOf(ws)
	before, err := s.Scan(context.Background(), ws, nil, lim)
	if err != nil {
		t.Fatal(err)
	}
	if before.Racy == 0 || !before.Entries["d00/f00000.go"].Racy {
		t.Fatal("a file written just now is not racy")
	}
	fi, _ := os.Stat(p)
	os.WriteFile(p, []byte("package q\n// 0\n"), 0o644) // same size
	os.Chtimes(p, fi.ModTime(), fi.ModTime())
	after, err := s.Scan(context.Background(), ws, before, lim)
	if err != nil {
		t.Fatal(err)
	}
	ch := snapshot.Diff(before, after)
	if len(ch) != 1 || ch[0].Path != "d00/f00000.go" || ch[0].Kind != snapshot.Modified {
		t.Fatalf("changes %+v", ch)
	}
	// Past the window an unchanged stat is trusted: nothing is hashed or
	// stored again (the blobs removed here are not written back).
	time.Sleep(2100 * time.Millisecond)
	settled, _ := s.Scan(context.Background(), ws, after, lim)
	blobs := filepath.Join(ws.Root, ".agentic", "snapshots", "blobs")
	os.RemoveAll(blobs)
	again, err := s.Scan(context.Background(), ws, settled, lim)
	if err != nil || len(snapshot.Diff(settled, again)) != 0 || again.Racy != 0 {
		t.Fatalf("rescan of a settled tree: %v %v racy %d", err, snapshot.Diff(settled, again), again.Racy)
	}
	if _, err := os.Stat(blobs); err == nil {
		t.Error("a trusted rescan read and stored files again")
	}
	for rel, e := range again.Entries {
		if !e.Kept && !e.Mode.IsDir() {
			t.Errorf("%s lost its kept flag on a trusted rescan", rel)
		}
	}
}

// The byte budget and the file size cap keep what fits and record the
// rest by hash only.
func TestScanLimits(t *testing.T) {
	ws := tree(t, 10) // each file 13-14 bytes
	s := snapshot.Open(ws)
	m, err := s.Scan(context.Background(), ws, nil, snapshot.Limits{MaxFiles: 100, MaxBytes: 50, MaxFileBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, e := range m.Entries {
		if e.Kept {
			kept++
		}
	}
	if kept == 0 || kept > 3 || m.Unkept != 10-kept {
		t.Errorf("kept %d, unkept %d under a 50-byte budget", kept, m.Unkept)
	}
	m, _ = s.Scan(context.Background(), ws, nil, snapshot.Limits{MaxFiles: 100, MaxBytes: 1 << 20, MaxFileBytes: 5})
	if m.Unkept != 10 {
		t.Errorf("unkept %d with a 5-byte file cap", m.Unkept)
	}
	for _, e := range m.Entries {
		if e.Regular() && e.Hex() == "0000000000000000000000000000000000000000000000000000000000000000" {
			t.Errorf("%s has no hash", e.Path)
		}
	}
	if _, err := s.Scan(context.Background(), ws, nil, snapshot.Limits{MaxFiles: 9, MaxBytes: 1, MaxFileBytes: 1}); err != snapshot.ErrTooMany {
		t.Errorf("10 files under a cap of 9: %v", err)
	}
}

// A job that swaps a directory for a symlink to outside the workspace
// never gets outside content into the store: the watched directory went,
// so the scan after the job walks, and a walk follows no symlink.
func TestSymlinkedDirectoryNotReadThrough(t *testing.T) {
	outside := t.TempDir()
	secret := []byte("outside the workspace\n")
	for round := 0; round < 10; round++ {
		ws := tree(t, 100)
		os.WriteFile(filepath.Join(outside, "f00000.go"), secret, 0o644)
		os.WriteFile(filepath.Join(outside, "f00050.go"), secret, 0o644)
		snapshot.Begin(context.Background(), ws, nil).End(context.Background(), "job_0", filepath.Join(t.TempDir(), "r0.json"), "r0")
		s := snapshot.Begin(context.Background(), ws, nil)
		os.RemoveAll(filepath.Join(ws.Root, "d00"))
		os.Symlink(outside, filepath.Join(ws.Root, "d00"))
		s.End(context.Background(), "job_1", filepath.Join(t.TempDir(), "r1.json"), "r1")
		sum := sha256.Sum256(secret)
		h := hex.EncodeToString(sum[:])
		if _, err := os.Stat(filepath.Join(ws.Store.Path(snapshot.Dir), "blobs", h[:2], h)); err == nil {
			t.Fatalf("round %d: the store holds a file read through the symlink", round)
		}
	}
}
