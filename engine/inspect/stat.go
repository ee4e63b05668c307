package inspect

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// StatRequest is the argument object of inspect.stat.
type StatRequest struct {
	Path string `json:"path" doc:"file or directory, relative to the workspace root (a symlink is reported, not followed)"`
}

// StatData is data of inspect.stat; scripts rely on its field names.
type StatData struct {
	Path      string `json:"path"`
	Type      string `json:"type"` // file, directory, symlink, other
	Size      int64  `json:"size"`
	Mode      string `json:"mode"`      // "-rw-r--r--"
	ModeOctal string `json:"modeOctal"` // "0644"
	Mtime     string `json:"mtime"`     // RFC 3339
	SHA256    string `json:"sha256,omitempty"`
	Lines     *int64 `json:"lines,omitempty"`
	Binary    bool   `json:"binary,omitempty"`
	// Target is where a symlink inside the workspace points (root-relative).
	Target string `json:"target,omitempty"`
	// Entries counts a directory's direct children (denyPaths not counted).
	Entries *int `json:"entries,omitempty"`
}

// Stat describes one path: type, size, mode, mtime, and for files the
// SHA-256 and line count (one streamed pass).
func Stat(ctx context.Context, ws *workspace.Workspace, req *StatRequest) (envelope.Envelope, error) {
	if req.Path == "" {
		return envelope.Envelope{}, envelope.Errorf(envelope.InvalidInput, "stat needs a path: `aw inspect stat PATH` (relative to the workspace root)").With("field", "path")
	}
	jp, err := ws.Jail.Resolve(req.Path, workspace.Read)
	if err != nil {
		return envelope.Envelope{}, err
	}
	d := &StatData{Path: display(jp.Rel)}
	// A symlink is described as one (the jail already checked its target).
	if link, ok := lexicalLink(ws, req.Path); ok {
		if li, err := os.Lstat(link); err == nil && li.Mode()&fs.ModeSymlink != 0 {
			d.Path = display(ws.Rel(link))
			d.Target = display(jp.Rel)
			d.Type = "symlink"
		}
	}
	fi, err := statPath(jp, req.Path)
	if err != nil {
		return envelope.Envelope{}, err
	}
	if d.Type == "" {
		d.Type = fileType(fi.Mode())
	}
	d.Size = fi.Size()
	d.Mode = fi.Mode().String()
	d.ModeOctal = octal(fi.Mode())
	d.Mtime = fi.ModTime().UTC().Format(time.RFC3339Nano)
	var summary string
	switch {
	case fi.Mode().IsRegular():
		f, err := os.Open(jp.Abs)
		if err != nil {
			return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "cannot open %s: %v; check its permissions", d.Path, err).With("path", d.Path)
		}
		s, err := streamFile(f, fi.Size(), false, nil)
		f.Close()
		if err != nil {
			return envelope.Envelope{}, envelope.Errorf(envelope.Internal, "cannot read %s: %v; check its permissions", d.Path, err).With("path", d.Path)
		}
		d.SHA256, d.Size, d.Binary = s.SHA256, s.Size, s.Binary
		d.Lines = &s.Lines
		kind := "file"
		if d.Binary {
			kind = "binary file"
		}
		summary = fmt.Sprintf("%s: %s, %d bytes, %d lines, %s, modified %s, sha256 %s", d.Path, kind, d.Size, s.Lines, d.Mode, d.Mtime, d.SHA256)
	case fi.IsDir():
		n := 0
		if ents, err := os.ReadDir(jp.Abs); err == nil {
			for _, e := range ents {
				if !ws.Jail.Denied(join(jp.Rel, e.Name())) {
					n++
				}
			}
		}
		d.Entries = &n
		summary = fmt.Sprintf("%s: directory, %s, %s, modified %s", d.Path, plural(n, "entry", "entries"), d.Mode, d.Mtime)
	default:
		summary = fmt.Sprintf("%s: %s, %s, modified %s", d.Path, d.Type, d.Mode, d.Mtime)
	}
	if d.Type == "symlink" {
		summary = fmt.Sprintf("%s is a symlink to %s; ", d.Path, d.Target) + summary
	}
	env := envelope.New("", summary, d)
	env.Retention.Importance = envelope.Low
	if d.SHA256 != "" {
		env.Fact("%s sha256 %s (%d bytes)", d.Target+d.Path, d.SHA256, d.Size)
	}
	return env, nil
}

// lexicalLink returns the absolute, unresolved path the caller named when
// it has no ".." (so the name is the link itself, not a kernel walk).
func lexicalLink(ws *workspace.Workspace, p string) (string, bool) {
	native := filepath.FromSlash(p)
	for _, part := range strings.Split(filepath.ToSlash(p), "/") {
		if part == ".." {
			return "", false
		}
	}
	if !filepath.IsAbs(native) {
		native = filepath.Join(ws.Root, native)
	}
	native = filepath.Clean(native)
	if native == ws.Root || !strings.HasPrefix(native, ws.Root+string(filepath.Separator)) {
		return "", false
	}
	// The parent must be a real directory path: only the last element may
	// be the link.
	if parent, err := filepath.EvalSymlinks(filepath.Dir(native)); err != nil || parent != filepath.Dir(native) {
		return "", false
	}
	return native, true
}

// fileType names a mode the way listings do.
func fileType(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	}
	return "other"
}

// octal is the permission bits (with setuid, setgid, sticky) as "0755".
func octal(m fs.FileMode) string {
	v := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		v |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		v |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		v |= 0o1000
	}
	return fmt.Sprintf("%04o", v)
}
