package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// astLangCases: per language, a file, a grep pattern with the capture it
// must bind, and a rewrite of an indented line into two lines whose result
// must keep the indentation.
var astLangCases = []struct {
	lang, file, src          string
	pattern, capture, value  string
	rewrite, template, after string
}{
	{"go", "a.go", "package p\n\nfunc f() {\n\tif x {\n\t\tdispose(a)\n\t}\n}\n",
		"dispose($X)", "X", "a", "dispose($X)", "$X.Close()\nlog($X)", "package p\n\nfunc f() {\n\tif x {\n\t\ta.Close()\n\t\tlog(a)\n\t}\n}\n"},
	{"javascript", "a.js", "function f() {\n  if (x) {\n    dispose(a);\n  }\n}\n",
		"dispose($X)", "X", "a", "dispose($X)", "$X.close();\nlog($X)", "function f() {\n  if (x) {\n    a.close();\n    log(a);\n  }\n}\n"},
	{"typescript", "a.ts", "function f(a: T): void {\n  if (x) {\n    dispose(a);\n  }\n}\n",
		"function $F($A: T): void { $$$ }", "F", "f", "dispose($X)", "$X.close();\nlog($X)", "function f(a: T): void {\n  if (x) {\n    a.close();\n    log(a);\n  }\n}\n"},
	{"tsx", "a.tsx", "function F() {\n  return (\n    <B on={go} />\n  );\n}\n",
		"<B on={$H} />", "H", "go", "<B on={$H} />", "<C\n  on={$H}\n/>", "function F() {\n  return (\n    <C\n      on={go}\n    />\n  );\n}\n"},
	{"python", "a.py", "def f():\n    if x:\n        dispose(a)\n",
		"dispose($X)", "X", "a", "dispose($X)", "$X.close()\nlog($X)", "def f():\n    if x:\n        a.close()\n        log(a)\n"},
	{"rust", "a.rs", "fn f() {\n    if x {\n        dispose(a);\n    }\n}\n",
		"dispose($X)", "X", "a", "dispose($X)", "$X.close();\nlog($X)", "fn f() {\n    if x {\n        a.close();\n        log(a);\n    }\n}\n"},
	{"java", "A.java", "class A {\n  void f() {\n    if (x) {\n      dispose(a);\n    }\n  }\n}\n",
		"dispose($X)", "X", "a", "dispose($X);", "$X.close();\nlog($X);", "class A {\n  void f() {\n    if (x) {\n      a.close();\n      log(a);\n    }\n  }\n}\n"},
	// A bare `dispose(a)` is a declaration to C's grammar as to a C
	// compiler's: the call is told apart by its second argument.
	{"c", "a.c", "void f(void) {\n  if (x) {\n    dispose(a, 0);\n  }\n}\n",
		"dispose($X, 0)", "X", "a", "dispose($X, 0);", "close($X);\nlog($X);", "void f(void) {\n  if (x) {\n    close(a);\n    log(a);\n  }\n}\n"},
	{"bash", "a.sh", "f() {\n  if true; then\n    rm -rf \"$d\"\n  fi\n}\n",
		"rm -rf $X", "X", "\"$d\"", "rm -rf $X", "echo $X\nrm -r $X", "f() {\n  if true; then\n    echo \"$d\"\n    rm -r \"$d\"\n  fi\n}\n"},
}

// TestASTLanguages runs grep, edit and resolve over each language through
// the binary: the capture, a rewrite that keeps indentation once accepted,
// and a resolve refused whole after the file changed.
func TestASTLanguages(t *testing.T) {
	for _, c := range astLangCases {
		t.Run(c.lang, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, ".agentic"), 0o755)
			os.WriteFile(filepath.Join(dir, ".agentic", "config.json"), []byte(`{"permissionMode":2}`), 0o644)
			path := filepath.Join(dir, c.file)
			os.WriteFile(path, []byte(c.src), 0o644)
			os.WriteFile(filepath.Join(dir, "other"+filepath.Ext(c.file)), []byte(c.src), 0o644)

			r := runAW(t, dir, nil, "ast", "grep", c.pattern, c.file)
			if r.field(t, ".data.total") != 1.0 || r.field(t, ".data.matches.0.captures."+c.capture) != c.value || r.field(t, ".data.languages.0") != c.lang {
				t.Fatalf("grep: %s", r.Stdout)
			}
			// The same file named by --lang alone.
			if r := runAW(t, dir, nil, "ast", "grep", c.pattern, "--lang", c.lang); r.field(t, ".data.total") != 2.0 {
				t.Errorf("grep --lang: %s", r.Stdout)
			}

			r = runAW(t, dir, nil, "ast", "edit", c.rewrite, c.file, "--rewrite", c.template)
			id, _ := r.field(t, ".data.editId").(string)
			if r.field(t, ".data.replacementCount") != 1.0 || id == "" {
				t.Fatalf("edit: %s", r.Stdout)
			}
			if b, _ := os.ReadFile(path); string(b) != c.src {
				t.Fatalf("edit wrote the file")
			}
			if r := runAW(t, dir, nil, "ast", "resolve", id, "accept"); r.field(t, ".data.status") != "applied" {
				t.Fatalf("accept: %s", r.Stdout)
			}
			if b, _ := os.ReadFile(path); string(b) != c.after {
				t.Errorf("after accept:\n%s\nwant:\n%s", b, c.after)
			}

			// Both files staged, one touched: the whole change is refused.
			r = runAW(t, dir, nil, "ast", "edit", c.rewrite, "--rewrite", c.template, "--lang", c.lang)
			id, _ = r.field(t, ".data.editId").(string)
			if r.field(t, ".data.filesChanged") != 1.0 {
				t.Fatalf("second edit: %s", r.Stdout)
			}
			other := filepath.Join(dir, "other"+filepath.Ext(c.file))
			os.WriteFile(other, []byte(c.src+"\n"), 0o644)
			r = runAW(t, dir, nil, "ast", "resolve", id, "accept")
			if r.Code == 0 || r.field(t, ".error.code") != "EDIT_CONFLICT" {
				t.Errorf("stale accept: %s", r.Stdout)
			}
			if b, _ := os.ReadFile(other); string(b) != c.src+"\n" {
				t.Errorf("a refused change wrote %s", other)
			}
		})
	}
}

// TestASTTreeStore: a second search reads the trees the first stored
// (records appear in the cache directory), a changed file is parsed again,
// and damaged records are ignored and written anew, the matches the same
// each time.
func TestASTTreeStore(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	env := []string{"XDG_CACHE_HOME=" + cache}
	body := strings.Repeat("const a = require('a'); // padding to be worth storing\n", 50)
	path := filepath.Join(dir, "a.js")
	os.WriteFile(path, []byte(body), 0o644)
	records := func() []string {
		found, _ := filepath.Glob(filepath.Join(cache, "aw", "trees", "javascript-*", "*"))
		return found
	}
	grep := func(want float64) {
		t.Helper()
		if r := runAWEnv(t, dir, nil, env, "ast", "grep", "require($X)", "--max-results", "1000"); r.field(t, ".data.total") != want {
			t.Fatalf("want %v matches: %s", want, r.Stdout)
		}
	}
	grep(50)
	stored := records()
	if len(stored) != 1 {
		t.Fatalf("records after one search: %v", stored)
	}
	first, _ := os.ReadFile(stored[0])
	grep(50)
	os.WriteFile(path, []byte(body+"require('b');\n"), 0o644)
	grep(51)
	if len(records()) != 2 {
		t.Fatalf("a changed file was not stored anew: %v", records())
	}
	for _, p := range records() {
		os.WriteFile(p, []byte("damaged"), 0o600)
	}
	grep(51)
	os.WriteFile(path, []byte(body), 0o644)
	grep(50)
	if b, _ := os.ReadFile(stored[0]); string(b) != string(first) {
		t.Error("a damaged record was not written again")
	}
}
