package vcs

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/agentic-workspace/aw/internal/testenv"
)

func runOut(t *testing.T, dir string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

// TestObjectStoreMatchesGoGit reads every object of a repository that git
// packed with deltas (and a few loose ones) through the pack reader and
// compares each with go-git's storage.
func TestVCSObjectStoreMatchesGoGit(t *testing.T) {
	testenv.Git(t)
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	var body strings.Builder
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&body, "line %d of a file that grows a little in every commit\n", i)
	}
	for i := 0; i < 30; i++ {
		body.WriteString(fmt.Sprintf("change %d\n", i))
		for _, f := range []string{"a.txt", fmt.Sprintf("d%d/b.txt", i%3), "empty"} {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
			content := body.String()
			if f == "empty" {
				content = ""
			}
			if err := os.WriteFile(filepath.Join(dir, f), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		run("add", "-A")
		run("commit", "-q", "-m", fmt.Sprintf("commit %d", i))
		if i == 20 {
			run("repack", "-adq", "--depth=50", "--window=50")
		}
	}
	// A commit with multi-line headers (a signature, an encoding) that the
	// commit parser must skip.
	head := strings.TrimSpace(runOut(t, dir, "git", "rev-parse", "HEAD^{tree}"))
	raw := "tree " + head + "\nauthor A <a@x> 1700000000 +0200\ncommitter C D <c@x> 1700000001 -0130\nencoding ISO-8859-1\n" +
		"gpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\n\nsubject line\n\nbody\n"
	os.WriteFile(filepath.Join(dir, "raw"), []byte(raw), 0o644)
	run("hash-object", "-t", "commit", "-w", "--literally", "raw")
	r, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	rp := &repo{r: r, top: dir, gitDir: filepath.Join(dir, ".git")}
	s := rp.objects()
	if !s.loaded {
		s.loadPacks()
	}
	if len(s.packs) != 1 {
		t.Fatalf("%d packs mapped, want 1", len(s.packs))
	}
	iter, err := r.Storer.IterEncodedObjects(plumbing.AnyObject)
	if err != nil {
		t.Fatal(err)
	}
	n, commits := 0, 0
	err = iter.ForEach(func(o plumbing.EncodedObject) error {
		rd, err := o.Reader()
		if err != nil {
			return err
		}
		want, err := io.ReadAll(rd)
		rd.Close()
		if err != nil {
			return err
		}
		typ, got, err := s.read(o.Hash())
		if err != nil {
			return fmt.Errorf("%s: %v", o.Hash(), err)
		}
		if typ != o.Type() || !bytes.Equal(got, want) {
			return fmt.Errorf("%s: got a %s of %d bytes, want a %s of %d", o.Hash(), typ, len(got), o.Type(), len(want))
		}
		if typ == plumbing.CommitObject {
			want, err := object.DecodeCommit(r.Storer, o)
			if err != nil {
				return err
			}
			got, err := rp.commit(o.Hash())
			if err != nil {
				return err
			}
			if got.Hash != want.Hash || got.TreeHash != want.TreeHash || fmt.Sprint(got.ParentHashes) != fmt.Sprint(want.ParentHashes) ||
				got.Author.String() != want.Author.String() || !got.Author.When.Equal(want.Author.When) || got.Author.When.Format(time.RFC3339) != want.Author.When.Format(time.RFC3339) ||
				got.Committer.String() != want.Committer.String() || !got.Committer.When.Equal(want.Committer.When) || got.Message != want.Message {
				return fmt.Errorf("commit %s: parsed %+v, go-git %+v", o.Hash(), got, want)
			}
			commits++
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 || commits != 31 {
		t.Fatalf("only %d objects (%d commits) compared", n, commits)
	}
	if _, _, err := s.read(plumbing.NewHash("0123456789012345678901234567890123456789")); err != plumbing.ErrObjectNotFound {
		t.Errorf("a missing object: %v", err)
	}
}
