package edit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// BenchmarkCommit200 compares committing a 200-file transaction (fsynced,
// journaled) with the least any durable writer must do: a temp file, fsync
// and rename per file, then one directory fsync. Both run alternately on
// the same files in the same process; the ratio is the figure that counts
// (target <= 1.2x, and under 1 s).
//
//	go test ./engine/edit -run '^$' -bench Commit200 -benchtime 10x
func BenchmarkCommit200(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode":2,"allowDestructiveEdits":true}`), 0o644)
	for i := 0; i < 200; i++ {
		os.MkdirAll(filepath.Join(dir, "src"), 0o755)
		os.WriteFile(filepath.Join(dir, "src", fmt.Sprintf("f%03d.go", i)), []byte(fmt.Sprintf("package src // %d\n", i)), 0o644)
	}
	ws, err := workspace.Open(workspace.Options{Root: dir, Tier: workspace.TierExec})
	if err != nil {
		b.Fatal(err)
	}
	var aw, peer []time.Duration
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		var ops []Op
		for i := 0; i < 200; i++ {
			c := fmt.Sprintf("package src // %d round %d\n", i, n)
			ops = append(ops, Op{Type: "rewrite", Path: fmt.Sprintf("src/f%03d.go", i), Content: &c})
		}
		env, err := Preview(context.Background(), ws, &PreviewRequest{Operations: ops})
		if err != nil {
			b.Fatal(err)
		}
		tx := env.Data.(*Result).TransactionID
		b.StartTimer()
		start := time.Now()
		if _, err := Commit(context.Background(), ws, &TxRequest{TransactionID: tx}); err != nil {
			b.Fatal(err)
		}
		aw = append(aw, time.Since(start))
		b.StopTimer()
		start = time.Now()
		if err := peerCommit(dir, n); err != nil {
			b.Fatal(err)
		}
		peer = append(peer, time.Since(start))
		b.StartTimer()
	}
	ma, mp := median(aw), median(peer)
	b.ReportMetric(float64(ma.Microseconds())/1000, "aw-ms")
	b.ReportMetric(float64(mp.Microseconds())/1000, "peer-ms")
	b.ReportMetric(float64(ma)/float64(mp), "ratio")
}

// peerCommit is the minimal durable loop over the same 200 files.
func peerCommit(dir string, n int) error {
	src := filepath.Join(dir, "src")
	for i := 0; i < 200; i++ {
		target := filepath.Join(src, fmt.Sprintf("f%03d.go", i))
		tmp, err := os.CreateTemp(src, ".peer-*")
		if err != nil {
			return err
		}
		fmt.Fprintf(tmp, "package src // %d peer %d\n", i, n)
		if err := tmp.Sync(); err != nil {
			return err
		}
		tmp.Close()
		if err := os.Rename(tmp.Name(), target); err != nil {
			return err
		}
	}
	d, err := os.Open(src)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// BenchmarkPreviewReplace5000 previews a replace that changes every line of
// a 5,000-line file (diff, artifacts and all): what a large preview costs.
//
//	go test ./engine/edit -run '^$' -bench PreviewReplace5000
func BenchmarkPreviewReplace5000(b *testing.B) {
	dir := b.TempDir()
	var text []byte
	for i := 0; i < 5000; i++ {
		text = fmt.Appendf(text, "line %d calls oldName(%d)\n", i, i)
	}
	os.WriteFile(filepath.Join(dir, "big.go"), text, 0o644)
	ws, err := workspace.Open(workspace.Options{Root: dir, Tier: workspace.TierExec})
	if err != nil {
		b.Fatal(err)
	}
	repl, n := "newName(", 5000
	ops := []Op{{Type: "replace", Path: "big.go", Search: "oldName(", Replacement: &repl, ExpectedMatches: &n}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Preview(context.Background(), ws, &PreviewRequest{Operations: ops}); err != nil {
			b.Fatal(err)
		}
	}
}
