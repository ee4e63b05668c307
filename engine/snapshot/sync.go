package snapshot

import (
	"os"
	"path/filepath"

	"github.com/agentic-workspace/aw/engine/store"
)

// manySynced is how many blobs a scan fsyncs one by one; past it, one
// flush of the file system (where there is one) is cheaper than a journal
// commit per file.
const manySynced = 64

// sync makes the blobs a scan wrote durable before any manifest or job
// record names them: fsynced one by one with their directories when they
// are few, else the whole file system at once.
func (s *Store) sync(wrote []string) error {
	if len(wrote) == 0 {
		return nil
	}
	if len(wrote) > manySynced && syncAll(s.dir) == nil {
		return nil
	}
	dirs := map[string]bool{filepath.Join(s.dir, "blobs"): true}
	for _, p := range wrote {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
		dirs[filepath.Dir(p)] = true
	}
	for d := range dirs {
		if err := store.SyncDir(d); err != nil {
			return err
		}
	}
	return nil
}
