package workspace

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkOpenCached is one call's Open in a long-lived front end (aw
// mcp): settings unchanged since the last call.
func BenchmarkOpenCached(b *testing.B) {
	root := b.TempDir()
	os.MkdirAll(filepath.Join(root, StateDir), 0o755)
	os.WriteFile(filepath.Join(root, StateDir, "config.json"), []byte(`{"permissionMode": 1}`), 0o644)
	hour := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(root, StateDir, "config.json"), hour, hour)
	opts := Options{Root: root, WorkingDir: root, ConfigHome: b.TempDir(), Cache: &Cache{}, Tier: TierExec}
	if _, err := Open(opts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Open(opts); err != nil {
			b.Fatal(err)
		}
	}
}
