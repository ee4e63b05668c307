package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommittedDocsAreFresh regenerates man/ and completions/ into a temp
// directory and compares them with the committed ones, file by file: a page
// or script that is missing, extra or different fails CI.
func TestCommittedDocsAreFresh(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	fresh := t.TempDir()
	if err := Generate(fresh); err != nil {
		t.Fatalf("generating docs: %v", err)
	}
	var problems []string
	for _, dir := range []string{ManDir, CompletionsDir} {
		want := readTree(t, filepath.Join(fresh, dir))
		got := readTree(t, filepath.Join(repo, dir))
		for _, name := range sortedKeys(want) {
			committed, ok := got[name]
			switch {
			case !ok:
				problems = append(problems, "missing: "+dir+"/"+name)
			case !bytes.Equal(committed, want[name]):
				problems = append(problems, "changed: "+dir+"/"+name)
			}
		}
		for _, name := range sortedKeys(got) {
			if _, ok := want[name]; !ok {
				problems = append(problems, "extra:   "+dir+"/"+name+" (no command generates it any more)")
			}
		}
	}
	fresh1, _ := os.ReadFile(filepath.Join(fresh, ReferenceFile))
	if committed, err := os.ReadFile(filepath.Join(repo, ReferenceFile)); err != nil || !bytes.Equal(committed, fresh1) {
		problems = append(problems, "changed: "+ReferenceFile)
	}
	if len(problems) > 0 {
		t.Fatalf("the committed man pages, completions and reference are stale:\n  %s\nrun scripts/gen-docs and commit man/, completions/ and docs/",
			strings.Join(problems, "\n  "))
	}
}

// TestGenerateIsDeterministic guards the property the freshness check needs.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := Generate(a); err != nil {
		t.Fatal(err)
	}
	if err := Generate(b); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{ManDir, CompletionsDir} {
		ta, tb := readTree(t, filepath.Join(a, dir)), readTree(t, filepath.Join(b, dir))
		if len(ta) == 0 {
			t.Fatalf("%s: nothing generated", dir)
		}
		for name, content := range ta {
			if !bytes.Equal(content, tb[name]) {
				t.Errorf("%s/%s differs between two runs", dir, name)
			}
		}
	}
	ra, _ := os.ReadFile(filepath.Join(a, ReferenceFile))
	rb, _ := os.ReadFile(filepath.Join(b, ReferenceFile))
	if len(ra) == 0 || !bytes.Equal(ra, rb) {
		t.Errorf("%s is empty or differs between two runs", ReferenceFile)
	}
	for _, name := range []string{"aw.1", "aw-completion-bash.1"} {
		if _, err := os.Stat(filepath.Join(a, ManDir, name)); err != nil {
			t.Errorf("expected page %s: %v", name, err)
		}
	}
}

// readTree maps each regular file under dir (slash-separated relative path)
// to its content; a missing dir is empty.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && path == dir {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = raw
		return nil
	})
	if err != nil {
		t.Fatalf("reading %s: %v", dir, err)
	}
	return files
}
