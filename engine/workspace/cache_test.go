package workspace

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// cacheRoot is a workspace whose config was last written an hour ago.
func cacheRoot(t *testing.T, config string) (root, file string) {
	t.Helper()
	root = tree(t, ".agentic/")
	file = filepath.Join(root, ".agentic", "config.json")
	writeOld(t, file, config, time.Now().Add(-time.Hour))
	return root, file
}

func writeOld(t *testing.T, file, text string, mtime time.Time) {
	t.Helper()
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func openCached(t *testing.T, c *Cache, root string) *Workspace {
	t.Helper()
	ws, err := Open(Options{Root: root, Cache: c})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// An unchanged file is served from the cache: what the cache holds is what
// the next call gets (marked here to tell it from a fresh decode).
func TestCacheServesUnchangedSettings(t *testing.T) {
	root, _ := cacheRoot(t, `{"read": {"defaultLines": 7}}`)
	c := &Cache{}
	if ws := openCached(t, c, root); ws.Settings.Read.DefaultLines != 7 {
		t.Fatalf("defaultLines %d", ws.Settings.Read.DefaultLines)
	}
	for _, e := range c.entries {
		e.settings.Read.DefaultLines = 99
	}
	if ws := openCached(t, c, root); ws.Settings.Read.DefaultLines != 99 {
		t.Errorf("an unchanged settings file was decoded again (defaultLines %d)", ws.Settings.Read.DefaultLines)
	}
}

// A change is seen by the next Open: new content of the same size dated
// in the past, a removed file, a broken file (an error, never the cached
// settings), and the file written again.
func TestCacheSeesChanges(t *testing.T) {
	root, file := cacheRoot(t, `{"read": {"defaultLines": 7}}`)
	c := &Cache{}
	openCached(t, c, root)
	writeOld(t, file, `{"read": {"defaultLines": 8}}`, time.Now().Add(-2*time.Hour))
	if ws := openCached(t, c, root); ws.Settings.Read.DefaultLines != 8 {
		t.Errorf("same-size rewrite: defaultLines %d, want 8", ws.Settings.Read.DefaultLines)
	}
	os.Remove(file)
	if ws := openCached(t, c, root); ws.Settings.Read.DefaultLines != Defaults().Read.DefaultLines || len(ws.SettingsFiles) != 0 {
		t.Errorf("removed: defaultLines %d from %v", ws.Settings.Read.DefaultLines, ws.SettingsFiles)
	}
	writeOld(t, file, `{"read": {"defaultLines": "x"}}`, time.Now().Add(-time.Hour))
	if _, err := Open(Options{Root: root, Cache: c}); err == nil {
		t.Error("a broken settings file opened")
	}
	writeOld(t, file, `{"read": {"defaultLines": 9}}`, time.Now().Add(-time.Hour))
	if ws := openCached(t, c, root); ws.Settings.Read.DefaultLines != 9 {
		t.Errorf("fixed: defaultLines %d, want 9", ws.Settings.Read.DefaultLines)
	}
}

// A file modified within racyWindow of the read is read again on every
// call, even when its stamp is unchanged: a rewrite in the same clock tick
// would leave the stamp as it was.
func TestCacheDoesNotTrustRacyFiles(t *testing.T) {
	root := tree(t, ".agentic/")
	file := filepath.Join(root, ".agentic", "config.json")
	if err := os.WriteFile(file, []byte(`{"read": {"defaultLines": 7}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &Cache{}
	openCached(t, c, root)
	for _, e := range c.entries {
		e.settings.Read.DefaultLines = 99
	}
	if ws := openCached(t, c, root); ws.Settings.Read.DefaultLines != 7 {
		t.Errorf("a file written just now was taken from the cache (defaultLines %d)", ws.Settings.Read.DefaultLines)
	}
}

// Each call gets its own lists and maps: a change one call made to its
// settings is not in the next call's.
func TestCacheCopiesPerCall(t *testing.T) {
	root, _ := cacheRoot(t, `{"denyPaths": ["secret"], "commands": {"env": {"A": "1"}}}`)
	c := &Cache{}
	ws := openCached(t, c, root)
	ws.Settings.DenyPaths[0] = "changed"
	ws.Settings.Commands.Env["A"] = "changed"
	ws = openCached(t, c, root)
	if ws.Settings.DenyPaths[0] != "secret" || ws.Settings.Commands.Env["A"] != "1" {
		t.Errorf("a call's change reached the next call: %v %v", ws.Settings.DenyPaths, ws.Settings.Commands.Env)
	}
}
