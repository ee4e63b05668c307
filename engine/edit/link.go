package edit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Symlinks enter a transaction only through PlanRestore (aw command undo
// removes a link a command made and puts back one it removed): a side of a
// FileChange whose mode has fs.ModeSymlink is a link, and its content (the
// blob, the sha256) is the link's target. Such a path is jailed as the
// link itself: its directory resolved like any path, its last component
// never followed, so writing it can never reach what it points to.

// isLink says a recorded mode is a symlink's.
func isLink(mode uint32) bool { return fs.FileMode(mode)&fs.ModeSymlink != 0 }

// linkMode is the mode a transaction records for a symlink.
const linkMode = fs.ModeSymlink | 0o777

// touchesLink says either side of the change is a symlink.
func (c *FileChange) touchesLink() bool { return isLink(c.Mode) || isLink(c.BeforeMode) }

// resolveChange jails the path of a recorded change for writing.
func resolveChange(ws *workspace.Workspace, c *FileChange) (workspace.Path, error) {
	if c.touchesLink() {
		return resolveLink(ws, c.Path)
	}
	return ws.Jail.Resolve(c.Path, workspace.Write)
}

// resolveLink jails rel as a link: its directory resolves inside the
// workspace, and rel itself is neither denied nor protected.
func resolveLink(ws *workspace.Workspace, rel string) (workspace.Path, error) {
	dir, err := ws.Jail.Resolve(path.Dir(rel), workspace.Write)
	if err != nil {
		return workspace.Path{}, err
	}
	name := path.Base(rel)
	jrel := name
	if dir.Rel != "." {
		jrel = dir.Rel + "/" + name
	}
	// Resolve judges the name too: a link's own path must pass the rules
	// a file there would (denyPaths, protected), followed or not.
	if ws.Jail.Denied(jrel) || ws.Jail.Protected(jrel) {
		if _, err := ws.Jail.Resolve(jrel, workspace.Write); err != nil {
			return workspace.Path{}, err
		}
		return workspace.Path{}, envelope.Errorf(envelope.ProtectedPath, "%s is protected", jrel).With("path", jrel)
	}
	return workspace.Path{Abs: filepath.Join(dir.Abs, name), Rel: jrel}, nil
}

// OnDisk is what is at a path now.
type OnDisk struct {
	Present bool
	Mode    fs.FileMode // type bits and permissions
	Size    int64
	SHA256  string // of a regular file's content or of a symlink's target
	Target  string // a symlink's target
}

// Link says it is a symlink.
func (d OnDisk) Link() bool { return d.Mode&fs.ModeSymlink != 0 }

// ReadOnDisk reads what is at abs now without following it: absent (also
// when a parent is a file), a regular file with its content's sha256, a
// symlink with its target's, or anything else by its mode alone.
func ReadOnDisk(abs string) (OnDisk, error) {
	fi, err := os.Lstat(abs)
	if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
		return OnDisk{}, nil
	}
	if err != nil {
		return OnDisk{}, err
	}
	d := OnDisk{Present: true, Mode: fi.Mode(), Size: fi.Size()}
	switch {
	case d.Link():
		if d.Target, err = os.Readlink(abs); err != nil {
			return d, err
		}
		d.SHA256 = sha([]byte(d.Target))
	case fi.Mode().IsRegular():
		b, err := os.ReadFile(abs)
		if err != nil {
			return d, err
		}
		d.SHA256 = sha(b)
	}
	return d, nil
}

// current is what is at abs now: the sha256 of a regular file's content or
// of a symlink's target, "" when absent; link says it is a symlink.
// Anything else there is an error.
func current(abs string) (hash string, present, link bool, err error) {
	d, err := ReadOnDisk(abs)
	switch {
	case err != nil:
		return "", d.Present, d.Link(), err
	case d.Present && !d.Link() && !d.Mode.IsRegular():
		return "", true, false, fmt.Errorf("%s is no longer a regular file", abs)
	}
	return d.SHA256, d.Present, d.Link(), nil
}

// holds says what is at abs now is the recorded side (hash and kind; an
// absent side is "").
func holds(abs, want string, mode uint32) bool {
	got, _, link, err := current(abs)
	return err == nil && got == want && (got == "" || link == isLink(mode))
}

// place writes a side of a change: a file's content with its mode, or a
// symlink to the target content names, each replacing what is there in
// one rename.
func place(abs string, content []byte, mode uint32) error {
	if !isLink(mode) {
		return store.Replace(abs, content, fs.FileMode(mode))
	}
	tmp := filepath.Join(filepath.Dir(abs), fmt.Sprintf(".%s.aw-link-%d", filepath.Base(abs), os.Getpid()))
	os.Remove(tmp)
	if err := os.Symlink(string(content), tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, abs); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// linkFile loads a restoration's path as the link itself (not followed).
func (p *planner) linkFile(i int, op Op, raw string) (*vfile, error) {
	jp, err := resolveLink(p.ws, raw)
	if err != nil {
		return nil, err
	}
	if f, ok := p.files[jp.Rel]; ok {
		return f, nil
	}
	f := &vfile{rel: jp.Rel, abs: jp.Abs, mode: 0o644, origMode: 0o644}
	fi, err := os.Lstat(jp.Abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) || isNotDir(err):
	case err != nil:
		return nil, opErr(i, op, envelope.Internal, "cannot stat %s: %v", jp.Rel, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(jp.Abs)
		if err != nil {
			return nil, opErr(i, op, envelope.Internal, "cannot read the link %s: %v", jp.Rel, err)
		}
		f.origExists, f.exists = true, true
		f.origContent, f.content = []byte(target), []byte(target)
		f.origMode, f.mode = linkMode, linkMode
	default:
		return p.file(i, op, raw, workspace.Write, "path")
	}
	p.files[jp.Rel] = f
	p.order = append(p.order, jp.Rel)
	return f, nil
}

// permIs says the file at abs has the recorded permissions (a link's are
// not its own to keep).
func permIs(abs string, mode uint32) bool {
	fi, err := os.Lstat(abs)
	return err == nil && (isLink(mode) || fi.Mode().Perm() == fs.FileMode(mode).Perm())
}
