package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentic-workspace/aw/engine/envelope"
)

// Jail decides which paths a call may read or write. It resolves symlinks
// component by component the way the kernel will (so "link/.." means the link
// target's parent, not the link's), collapsing them on the deepest existing
// ancestor, and only then compares against its roots.
//
// Every path going in and coming out is relative to the workspace root; a
// --scope only narrows which of those paths are inside.
type Jail struct {
	Root       string // realpath of the workspace root
	Scope      string // realpath of the directory the jail is narrowed to (Root when not scoped)
	allowRoots []string
	deny       *Patterns
	protected  *Patterns
}

// Access is what a call wants to do with a path.
type Access int

// Read or Write.
const (
	Read Access = iota
	Write
)

// Path is a resolved, jailed path.
type Path struct {
	Abs string // the resolved absolute path to open; symlinks already followed
	Rel string // relative to the workspace root, forward slashes; absolute for allowPaths roots
	// Outside is true for a path under an allowPaths root (read-only).
	Outside bool
}

// builtinProtected are unwritable by every tool whatever the settings say.
var builtinProtected = []string{".git", ".agentic"}

// builtinDenied are neither readable nor writable whatever the settings
// say. The agent chooses --root, so it could make the config directory its
// workspace and read the approver token; no root ever shows it.
var builtinDenied = []string{"approver.token"}

func newJail(root, scope string, s *Settings) *Jail {
	j := &Jail{
		Root:      root,
		Scope:     scope,
		deny:      NewPatterns(builtinDenied, s.DenyPaths),
		protected: NewPatterns(builtinProtected, s.ProtectedPatterns),
	}
	j.allowRoots = allowRoots(root, s)
	return j
}

// allowRoots resolves the allowPaths roots (relative ones against root);
// a root that does not exist is left out.
func allowRoots(root string, s *Settings) []string {
	var out []string
	for _, a := range s.AllowPaths {
		if !filepath.IsAbs(a) {
			a = filepath.Join(root, a)
		}
		if real, err := filepath.EvalSymlinks(a); err == nil {
			out = append(out, real)
		}
	}
	return out
}

// Resolve jails p for the given access.
func (j *Jail) Resolve(p string, access Access) (Path, error) {
	if strings.IndexByte(p, 0) >= 0 {
		return Path{}, escape(strings.ReplaceAll(p, "\x00", `\0`), "it contains a NUL byte")
	}
	if p == "" {
		p = "."
	}
	native := filepath.FromSlash(p)
	var full string
	if filepath.IsAbs(native) {
		full = native
	} else {
		// Not filepath.Join: it would clean "link/.." lexically, and
		// resolve must read ".." after a symlink the kernel's way.
		full = j.Root + string(filepath.Separator) + native
	}
	abs, err := resolve(full)
	if err != nil {
		return Path{}, escape(p, err.Error())
	}
	lexical := filepath.Clean(full)
	if within(j.Scope, abs) {
		rel := relSlash(j.Root, abs)
		lrel := ""
		if within(j.Root, lexical) {
			lrel = relSlash(j.Root, lexical)
		}
		if j.deny.Match(rel) || j.deny.Match(lrel) {
			return Path{}, escape(p, "it matches denyPaths").With("reason", "denied")
		}
		if access == Write && (j.protected.Match(rel) || j.protected.Match(lrel)) {
			return Path{}, envelope.Errorf(envelope.ProtectedPath,
				"%s is protected (.git/**, .agentic/** and protectedPatterns are readable but never writable); state under .agentic/ changes only through the tool that owns it", displayRel(rel)).With("path", displayRel(rel))
		}
		return Path{Abs: abs, Rel: rel}, nil
	}
	for _, root := range j.allowRoots {
		if !within(root, abs) {
			continue
		}
		if j.deny.Match(relSlash(root, abs)) {
			return Path{}, escape(p, "it matches denyPaths").With("reason", "denied")
		}
		if access == Write {
			return Path{}, escape(p, "allowPaths roots are read-only").With("reason", "read-only")
		}
		return Path{Abs: abs, Rel: filepath.ToSlash(abs), Outside: true}, nil
	}
	where := "the workspace root"
	if j.Scope != j.Root {
		where = "the scope " + relSlash(j.Root, j.Scope) + " (paths are relative to the workspace root, not to the scope)"
	}
	return Path{}, escape(p, "it resolves outside "+where)
}

// Denied reports whether a root-relative path is hidden by denyPaths.
func (j *Jail) Denied(rel string) bool { return j.deny.Match(rel) }

// DeniedBelow is Denied for a path whose parent directory is known not to
// be denied (see Patterns.MatchBelow).
func (j *Jail) DeniedBelow(rel string) bool { return j.deny.MatchBelow(rel) }

// Protected reports whether a root-relative path is unwritable.
func (j *Jail) Protected(rel string) bool { return j.protected.Match(rel) }

func escape(p, why string) *envelope.Error {
	return envelope.Errorf(envelope.PathEscape,
		"path %q is refused: %s; use a path inside the workspace (relative to its root) that is not on denyPaths", p, why).With("path", p)
}

// resolve returns the real path of full, following every symlink on the
// way, with the part below the deepest existing ancestor appended as is.
func resolve(full string) (string, error) {
	vol := filepath.VolumeName(full)
	rest := full[len(vol):]
	cur := vol + string(filepath.Separator)
	hops := 0
	parts := strings.Split(filepath.ToSlash(rest), "/")
	for i := 0; i < len(parts); i++ {
		name := parts[i]
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		if next == procDir {
			// /proc/self, /proc/<pid>/cwd and /proc/<pid>/fd/N name a
			// different file for each process: aw would check its own
			// working directory while a command writes in another.
			return "", errors.New("it goes through /proc, whose entries mean a different file to each process")
		}
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			// Nothing below exists: the rest is lexical.
			return filepath.Join(append([]string{next}, parts[i+1:]...)...), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return "", errors.New("too many levels of symbolic links")
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = cur + string(filepath.Separator) + target
		}
		// Re-walk the target, then what was left of the path.
		tail := append(strings.Split(filepath.ToSlash(target), "/"), parts[i+1:]...)
		vol = filepath.VolumeName(target)
		cur = vol + string(filepath.Separator)
		if vol != "" {
			tail[0] = ""
		}
		parts, i = tail, -1
	}
	return cur, nil
}

// procDir is where Linux keeps per-process views of the file system.
var procDir = string(filepath.Separator) + "proc"

func within(root, p string) bool {
	if p == root {
		return true
	}
	r := root
	if !strings.HasSuffix(r, string(filepath.Separator)) {
		r += string(filepath.Separator)
	}
	return strings.HasPrefix(p, r)
}

func relSlash(root, p string) string {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return filepath.ToSlash(p)
	}
	return filepath.ToSlash(rel)
}

func displayRel(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}
