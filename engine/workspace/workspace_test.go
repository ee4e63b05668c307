package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// tree makes dirs and files (a name ending in "/" is a directory) under a
// fresh temp dir and returns its realpath.
func tree(t *testing.T, names ...string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if strings.HasSuffix(n, "/") {
			err = os.MkdirAll(p, 0o755)
		} else if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			err = os.WriteFile(p, []byte("{}"), 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func code(err error) envelope.Code {
	var e *envelope.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestDiscoverPrefersAgenticOverGit(t *testing.T) {
	dir := tree(t, ".git/", "a/.agentic/", "a/b/c/", "x/y/")
	for _, c := range []struct{ from, want string }{
		{"a/b/c", "a"}, // .agentic/ wins over the outer .git
		{"a", "a"},     // the directory itself
		{"x/y", "."},   // only .git above
		{".git", "."},  // inside .git: its parent holds it
		{"a/.agentic", "a"},
	} {
		if got := Discover(filepath.Join(dir, c.from)); got != filepath.Join(dir, c.want) {
			t.Errorf("Discover(%s) = %s, want %s", c.from, got, filepath.Join(dir, c.want))
		}
	}
	bare := tree(t, "p/q/")
	if got := Discover(filepath.Join(bare, "p/q")); got != filepath.Join(bare, "p/q") {
		t.Errorf("no marker anywhere: Discover = %s, want the directory itself", got)
	}
}

func TestLocate(t *testing.T) {
	ws := tree(t, ".agentic/", "sub/deep/", "file.txt")
	plain := tree(t, "proj/.git/", "proj/src/", "loose/")
	outside := tree(t)
	link := filepath.Join(outside, "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name                string
		opts                Options
		root, scope, anchor string
		code                envelope.Code
	}{
		{"embedded root", Options{Root: ws}, ws, ws, ws, ""},
		{"embedded root missing", Options{Root: filepath.Join(ws, "nope")}, "", "", "", envelope.InvalidInput},
		{"embedded root is a file", Options{Root: filepath.Join(ws, "file.txt")}, "", "", "", envelope.InvalidInput},
		{"neither", Options{}, "", "", "", envelope.InvalidInput},
		{"discovered", Options{WorkingDir: filepath.Join(ws, "sub/deep")}, ws, ws, ws, ""},
		{"narrowed to a sub-directory keeps the root", Options{WorkingDir: ws, Root: "sub"}, ws, filepath.Join(ws, "sub"), ws, ""},
		{"narrowed to .agentic keeps the root", Options{WorkingDir: ws, Root: ".agentic"}, ws, filepath.Join(ws, ".agentic"), ws, ""},
		{"absolute narrowing", Options{WorkingDir: filepath.Join(ws, "sub"), Root: filepath.Join(ws, "sub/deep")}, ws, filepath.Join(ws, "sub/deep"), ws, ""},
		// aw mcp --root started in the root: resolved once, as the anchor.
		{"root is the working directory", Options{WorkingDir: ws, Root: ws}, ws, ws, ws, ""},
		{"root is the working directory by a link", Options{WorkingDir: link, Root: link}, ws, ws, ws, ""},
		{"root . in a sub-directory", Options{WorkingDir: filepath.Join(ws, "sub"), Root: "."}, ws, filepath.Join(ws, "sub"), ws, ""},
		{"root outside", Options{WorkingDir: ws, Root: outside}, "", "", "", envelope.PathEscape},
		{"root above", Options{WorkingDir: ws, Root: ".."}, "", "", "", envelope.PathEscape},
		{"root missing", Options{WorkingDir: ws, Root: "nope"}, "", "", "", envelope.InvalidInput},
		{"root is a file", Options{WorkingDir: ws, Root: "file.txt"}, "", "", "", envelope.InvalidInput},
		// No workspace around the working directory: the named directory's
		// own workspace, never one above the anchor.
		{"no workspace: the named one's", Options{WorkingDir: plain, Root: "proj/src"}, filepath.Join(plain, "proj"), filepath.Join(plain, "proj/src"), plain, ""},
		{"no workspace anywhere", Options{WorkingDir: plain, Root: "loose"}, filepath.Join(plain, "loose"), filepath.Join(plain, "loose"), plain, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loc, err := Locate(c.opts)
			if c.code != "" {
				if code(err) != c.code {
					t.Fatalf("err %v, want %s", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if loc.Root != c.root || loc.Scope != c.scope || loc.Anchor != c.anchor {
				t.Fatalf("got %+v, want root %s scope %s anchor %s", loc, c.root, c.scope, c.anchor)
			}
		})
	}
}

// TestOpenNarrowedKeepsPolicy: a call narrowed to a sub-directory that has
// its own .agentic/config.json still runs under the root's settings, and its
// jail stops at the narrowed directory.
func TestOpenNarrowedKeepsPolicy(t *testing.T) {
	ws := tree(t, "sub/x.txt", "other/y.txt")
	write(t, filepath.Join(ws, ".agentic/config.json"), `{"permissionMode": 0, "denyPaths": ["secret*"]}`)
	write(t, filepath.Join(ws, "sub/.agentic/config.json"), `{"permissionMode": 2}`)
	w, err := Open(Options{WorkingDir: ws, Root: "sub", Tier: TierWrite})
	if err != nil {
		t.Fatal(err)
	}
	if w.Root != ws || w.Settings.PermissionMode != 0 || len(w.SettingsFiles) != 1 {
		t.Fatalf("root %s mode %d files %v: the narrowed call must keep the root's settings", w.Root, w.Settings.PermissionMode, w.SettingsFiles)
	}
	if _, err := w.Jail.Resolve("other/y.txt", Read); err == nil {
		t.Error("the jail of a call narrowed to sub/ reaches other/")
	}
	if _, err := w.Jail.Resolve("sub/x.txt", Read); err != nil {
		t.Errorf("sub/x.txt: %v", err)
	}
	if !w.Allows(TierWrite) || w.Allows(TierExec) {
		t.Error("tier write allows write and not exec")
	}
}

func TestOpenScope(t *testing.T) {
	ws := tree(t, ".agentic/", "a/b/", "a/f.txt", "c/")
	for _, c := range []struct {
		root, scope string
		code        envelope.Code
	}{
		{"", "a", ""},
		{"", "../..", envelope.PathEscape},
		{"", "a/f.txt", envelope.InvalidInput},
		{"", "missing", envelope.InvalidInput},
		{"a", "a/b", ""},
		{"a", "c", envelope.PathEscape}, // outside what --root narrowed to
	} {
		_, err := Open(Options{WorkingDir: ws, Root: c.root, Scope: c.scope})
		if code(err) != c.code {
			t.Errorf("root %q scope %q: err %v, want %q", c.root, c.scope, err, c.code)
		}
	}
}

// TestUserConfigTrust: the user config applies only when it is the user's
// own private file outside the workspace and every allowPaths root.
func TestUserConfigTrust(t *testing.T) {
	ws := tree(t, ".agentic/")
	home := tree(t, "aw/")
	user := filepath.Join(home, "aw/config.json")
	open := func() *Workspace {
		t.Helper()
		w, err := Open(Options{WorkingDir: ws, ConfigHome: home})
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	write(t, user, `{"maxToolResultChars": 5000}`)
	if w := open(); w.Settings.MaxToolResultChars != 5000 || len(w.Warnings) != 0 {
		t.Fatalf("a private user config applies: %d %v", w.Settings.MaxToolResultChars, w.Warnings)
	}
	os.Chmod(user, 0o644)
	if w := open(); w.Settings.MaxToolResultChars != 20000 || !strings.Contains(strings.Join(w.Warnings, ""), "readable by group or others") {
		t.Fatalf("a world-readable user config is ignored with a warning: %d %v", w.Settings.MaxToolResultChars, w.Warnings)
	}
	os.Chmod(user, 0o600)
	if err := os.Link(user, filepath.Join(home, "second-name")); err != nil {
		t.Fatal(err)
	}
	if w := open(); w.Settings.MaxToolResultChars != 20000 || !strings.Contains(strings.Join(w.Warnings, ""), "hard links") {
		t.Fatalf("a hard-linked user config is ignored: %d %v", w.Settings.MaxToolResultChars, w.Warnings)
	}
	os.Remove(filepath.Join(home, "second-name"))
	// The user's own settings name an allowPaths root that holds the file.
	write(t, user, `{"maxToolResultChars": 5000, "allowPaths": ["`+home+`"]}`)
	if w := open(); w.Settings.MaxToolResultChars != 20000 || len(w.Settings.AllowPaths) != 0 || len(w.Warnings) != 1 {
		t.Fatalf("a user config inside an allowPaths root is ignored, and so are its allowPaths: %+v %v", w.Settings.AllowPaths, w.Warnings)
	}
	// A user config inside the workspace (the agent could write it).
	inside := filepath.Join(ws, "cfg")
	write(t, filepath.Join(inside, "aw/config.json"), `{"permissionMode": 2}`)
	w, err := Open(Options{WorkingDir: ws, ConfigHome: inside})
	if err != nil {
		t.Fatal(err)
	}
	if w.Settings.PermissionMode != 1 || !strings.Contains(strings.Join(w.Warnings, ""), "inside the workspace") {
		t.Fatalf("a user config inside the workspace is ignored: mode %d %v", w.Settings.PermissionMode, w.Warnings)
	}
	// Narrowed to a sub-directory: a user config elsewhere in the
	// discovered workspace is still inside it.
	sub := filepath.Join(ws, "sub")
	os.MkdirAll(sub, 0o755)
	w, err = Open(Options{WorkingDir: ws, Root: "sub", ConfigHome: inside})
	if err != nil {
		t.Fatal(err)
	}
	if w.Settings.PermissionMode != 1 || len(w.Warnings) != 1 {
		t.Fatalf("narrowed: a user config in the discovered workspace is ignored: mode %d %v", w.Settings.PermissionMode, w.Warnings)
	}
	if ok, why := w.TrustedUserFile(filepath.Join(inside, "aw/config.json")); ok || why == "" {
		t.Error("TrustedUserFile trusts a file inside the workspace")
	}
	if ok, _ := w.TrustedUserFile(filepath.Join(home, "absent")); !ok {
		t.Error("a missing file has nothing to distrust")
	}
}

func TestOpenRefusesBadSettings(t *testing.T) {
	for _, cfg := range []string{
		`{"permissionMode": 3}`, `{"permissionMode": -1}`, `{"maxToolResultChars": 999}`,
		`{"read": {"defaultLines": 0}}`, `{"read": {"maxBytes": -1}}`, `{"list": {"maxDepth": 0}}`,
		`{"list": {"maxEntries": 0}}`, `{"commands": {"maxSeconds": 0}}`, `{"commands": {"interpreter": "bash"}}`,
		`{"commands": {"maxOutputBytes": 1023}}`, `{"commands": {"maxJobs": 0}}`, `{"commands": {"sandbox": "maybe"}}`,
		`{"edit": {"maxTransactionBytes": 65535}}`, `{"store": {"retentionDays": 0}}`, `{"store": {"maxBytes": 1048575}}`,
		`{"nope": 1}`, `{`,
	} {
		ws := tree(t)
		write(t, filepath.Join(ws, ".agentic/config.json"), cfg)
		if _, err := Open(Options{WorkingDir: ws}); code(err) != envelope.InvalidInput {
			t.Errorf("%s: err %v, want INVALID_INPUT", cfg, err)
		}
	}
	for _, cfg := range []string{
		`{"permissionMode": 0}`, `{"permissionMode": 2}`, `{"maxToolResultChars": 1000}`, `{"read": {"maxBytes": 0}}`,
		`{"commands": {"interpreter": "sh", "sandbox": "require", "maxOutputBytes": 1024}}`,
		`{"edit": {"maxTransactionBytes": 65536}, "store": {"retentionDays": 1, "maxBytes": 1048576}}`,
	} {
		ws := tree(t)
		write(t, filepath.Join(ws, ".agentic/config.json"), cfg)
		if _, err := Open(Options{WorkingDir: ws}); err != nil {
			t.Errorf("%s: %v", cfg, err)
		}
	}
}

func TestParseTierAndModes(t *testing.T) {
	for s, want := range map[string]Tier{"read": TierRead, "write": TierWrite, "exec": TierExec, "": TierExec} {
		if got, err := ParseTier(s); err != nil || got != want {
			t.Errorf("ParseTier(%q) = %v, %v", s, got, err)
		}
	}
	if _, err := ParseTier("root"); code(err) != envelope.InvalidInput {
		t.Errorf("ParseTier(root): %v", err)
	}
	if ModeName(0) != "manual" || ModeName(1) != "plan" || ModeName(2) != "auto" || Title("plan") != "Plan" {
		t.Error("mode names")
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
