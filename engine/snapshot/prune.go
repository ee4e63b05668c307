package snapshot

import (
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// pruneMinAge protects blobs a scan may have written before saving the
// manifest that names them.
const pruneMinAge = 10 * time.Minute

// Pruned is what a prune removed (or, in a dry run, would).
type Pruned struct {
	Blobs int   `json:"blobs"`
	Bytes int64 `json:"bytes"`
}

// Prune removes the blobs nothing names any more: not the latest
// manifest's (the tree as it is), nor any job record's that is still
// kept (what undo and diff read). aw gc calls it after pruning jobs, whose
// records go with their directories.
func (s *Store) Prune(ws *workspace.Workspace, dryRun bool) (Pruned, error) {
	var out Pruned
	blobs := filepath.Join(s.dir, "blobs")
	if _, err := os.Stat(blobs); err != nil {
		return out, nil
	}
	named := map[string]bool{}
	if m := s.Latest(); m != nil {
		for _, e := range m.Entries {
			if e.Kept {
				named[hex.EncodeToString(e.Sum[:])] = true
			}
		}
	}
	recs, _ := filepath.Glob(filepath.Join(ws.Store.Path("jobs"), "*", "changes.json"))
	for _, p := range recs {
		rec, found, err := LoadRecord(ws, p)
		if err != nil || !found {
			// An unreadable record cannot vouch for its blobs: keep all.
			return out, nil
		}
		for _, c := range rec.Changes {
			for _, st := range []*State{c.Before, c.After} {
				if st != nil && st.Kept {
					named[st.SHA256] = true
				}
			}
		}
	}
	cutoff := time.Now().Add(-pruneMinAge)
	err := filepath.WalkDir(blobs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || named[d.Name()] {
			return nil
		}
		fi, err := d.Info()
		if err != nil || fi.ModTime().After(cutoff) {
			return nil
		}
		if !dryRun && os.Remove(p) != nil {
			return nil
		}
		out.Blobs++
		out.Bytes += fi.Size()
		return nil
	})
	return out, err
}
