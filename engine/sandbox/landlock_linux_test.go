package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLandlockRules: a carve-out is made by expanding the directories
// that hold it (they keep only the right to list, or to read), never by a
// grant that covers it; a symlink is never granted.
func TestLandlockRules(t *testing.T) {
	p := testPolicy(t)
	os.MkdirAll(p.Root+"/src/deep", 0o755)
	os.Symlink("/etc", p.Root+"/src/etc-link")
	if err := p.prepare(); err != nil {
		t.Fatal(err)
	}
	rules := map[string]string{}
	for _, r := range landlockRules(p) {
		rules[r.Path+"|"+r.Kind] = r.Kind
	}
	has := func(path, kind string) bool { _, ok := rules[path+"|"+kind]; return ok }
	for _, w := range []struct{ path, kind string }{
		{p.Root, "list"},         // holds .env: list only
		{p.Root + "/src", "rw"},  // no carve-out below: writable whole
		{p.Root + "/sub", "rw"},  //
		{p.Root + "/.git", "ro"}, // read-only carve-out
		{p.Root + "/deploy.key", "rof"},
		{p.privateTmp(), "rw"},
		{"/dev/null", "rwf"},
	} {
		if !has(w.path, w.kind) {
			t.Errorf("no %s rule on %s", w.kind, w.path)
		}
	}
	for _, never := range []string{p.Root + "/.env", p.Root + "/secrets", p.Home, p.Root + "/src/etc-link"} {
		for _, k := range []string{"ro", "rw", "rof", "rwf", "list"} {
			if has(never, k) {
				t.Errorf("%s must get no rule, has %s", never, k)
			}
		}
	}
	for _, anc := range []string{"/", filepath.Dir(p.Root)} {
		if has(anc, "ro") || has(anc, "rw") {
			t.Errorf("%s holds hidden paths: it may only be listed", anc)
		}
	}
}
