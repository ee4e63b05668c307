package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// The walk that finds the carve-outs reads every directory of the
// workspace at every spawn: 0.4 s on 50,000 files. What it finds in a
// directory depends only on the names and types of the directory's
// entries and on the patterns, and any change to those (create, remove,
// rename, a file replaced by a directory or a symlink) changes the
// directory's ctime (its change time, which unlike the mtime no process
// can set back). So the walk keeps, per directory, its ctime and the few
// entries that matter (sub-directories and matches), in the private state
// directory; the next spawn stats each directory and reads again only
// those whose ctime moved. A directory changed within racyWindow of the
// walk that read it is not kept (its time may not have ticked for a
// change made in the same instant), as git does for its index.

const racyWindow = 2 * time.Second

// walkCache is the file's content. Key is the patterns' hash: other
// settings start from nothing.
type walkCache struct {
	Key  string               `json:"key"`
	Dirs map[string]cachedDir `json:"dirs"` // root-relative, "" for the root
}

type cachedDir struct {
	Changed   int64         `json:"c"`           // ctime, ns
	Protected bool          `json:"p,omitempty"` // read inside a protected tree
	Entries   []cachedEntry `json:"e,omitempty"`
}

// cachedEntry is an entry the walk acts on: a sub-directory, or a match.
type cachedEntry struct {
	N string `json:"n"`           // name
	D bool   `json:"d,omitempty"` // a directory
	S bool   `json:"s,omitempty"` // a symlink
}

// entry is what walkEntries needs of a directory entry, from the file
// system or the cache.
type entry interface {
	Name() string
	IsDir() bool
	symlink() bool
}

type fsEntry struct{ os.DirEntry }

func (e fsEntry) symlink() bool { return e.Type()&os.ModeSymlink != 0 }

func (e cachedEntry) Name() string  { return e.N }
func (e cachedEntry) IsDir() bool   { return e.D }
func (e cachedEntry) symlink() bool { return e.S }

// walker walks with the cache of the previous walk, and builds the next.
type walker struct {
	j        *workspace.Jail
	old, new walkCache
	now      time.Time
	dirty    bool // a directory was read again, or left the cache
}

func cacheKey(ws *workspace.Workspace) string {
	raw, _ := json.Marshal([]any{1, ws.Root, ws.Settings.DenyPaths, ws.Settings.ProtectedPatterns})
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:12])
}

func (p *Policy) cachePath() string { return filepath.Join(p.State, "walk.json") }

// walk finds the carve-outs of the whole root, with the cache.
func (p *Policy) walk(ws *workspace.Workspace, protected bool) error {
	w := &walker{j: ws.Jail, now: time.Now(), new: walkCache{Key: cacheKey(ws), Dirs: map[string]cachedDir{}}}
	if raw, err := os.ReadFile(p.cachePath()); err != nil || json.Unmarshal(raw, &w.old) != nil || w.old.Key != w.new.Key {
		w.old = walkCache{} // none, damaged, or other patterns: walk from nothing
	}
	if err := p.descendWith(w, "", protected); err != nil {
		return err
	}
	w.dirty = w.dirty || len(w.new.Dirs) != len(w.old.Dirs)
	if !w.dirty {
		return nil
	}
	if raw, err := json.Marshal(w.new); err == nil && p.State != "" {
		if os.MkdirAll(p.State, 0o700) == nil {
			tmp := p.cachePath() + ".tmp"
			if os.WriteFile(tmp, raw, 0o600) == nil {
				os.Rename(tmp, p.cachePath())
			}
		}
	}
	return nil
}

// entries lists a directory's entries: from the cache when its mtime
// has not moved, else from the file system (keeping what matters).
func (p *Policy) entries(w *walker, rel string, protected bool) ([]entry, bool) {
	abs := filepath.Join(p.Root, filepath.FromSlash(rel))
	fi, err := os.Lstat(abs)
	if err != nil || !fi.IsDir() {
		return nil, false
	}
	m := changeTime(fi)
	if c, ok := w.old.Dirs[rel]; ok && c.Changed == m && c.Protected == protected {
		w.new.Dirs[rel] = c
		out := make([]entry, len(c.Entries))
		for i, e := range c.Entries {
			out[i] = e
		}
		return out, true
	}
	w.dirty = true
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil, false
	}
	out := make([]entry, 0, len(ents))
	var keep []cachedEntry
	for _, e := range ents {
		fe := fsEntry{e}
		out = append(out, fe)
		r := e.Name()
		if rel != "" {
			r = rel + "/" + r
		}
		dir := e.IsDir() && !fe.symlink()
		if dir || w.j.DeniedBelow(r) || (!protected && w.j.Protected(r)) || (rel == "" && (e.Name() == ".git" || e.Name() == workspace.StateDir)) {
			keep = append(keep, cachedEntry{N: e.Name(), D: e.IsDir(), S: fe.symlink()})
		}
	}
	if w.now.Sub(time.Unix(0, m)) > racyWindow {
		w.new.Dirs[rel] = cachedDir{Changed: m, Protected: protected, Entries: keep}
	}
	return out, true
}
