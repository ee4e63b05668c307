package gc

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// BenchmarkPruneScan measures one pruning pass over a store of 500
// transactions, 500 jobs and 500 artifacts, all within the retention age
// (so nothing is removed and every iteration sees the same store): the
// cost the hourly automatic pruning adds to one call.
//
//	go test ./engine/gc -run '^$' -bench PruneScan -benchtime 20x
func BenchmarkPruneScan(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
	ws, err := workspace.Open(workspace.Options{Root: dir, Tier: workspace.TierExec})
	if err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for i := 0; i < 500; i++ {
		for _, d := range []string{ws.Store.Path("transactions", store.NewID("tx")), ws.Store.Path("jobs", store.NewID("job"))} {
			os.MkdirAll(filepath.Join(d, "blobs"), 0o755)
			for _, f := range []string{"transaction.json", "job.json", "changes.diff", "blobs/" + fmt.Sprint(i)} {
				os.WriteFile(filepath.Join(d, f), []byte(`{"status":"applied"}`), 0o644)
			}
			os.Chtimes(d, old, old)
		}
		p := ws.Store.Path("artifacts", store.NewID("artifact")+"-out.txt")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, make([]byte, 1024), 0o644)
		os.Chtimes(p, old, old)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		res := &Result{DryRun: true}
		if err := prune(ws, res, AutoLimit); err != nil {
			b.Fatal(err)
		}
		if res.BytesFreed != 0 {
			b.Fatalf("freed %d bytes of a store within its limits", res.BytesFreed)
		}
	}
}
