package edit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/eol"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// MaxFileBytes bounds a file an operation reads into memory.
const MaxFileBytes = 64 << 20

// vfile is one path as the operations see it: its state on disk when the
// transaction started, and its state after the operations so far.
type vfile struct {
	rel, abs    string
	outside     bool // under an allowPaths root: read-only source
	origExists  bool
	origDir     bool
	origContent []byte
	origMode    fs.FileMode
	exists      bool
	content     []byte
	mode        fs.FileMode
}

// planner applies operations, in order, to a virtual copy of the files
// they touch. Nothing on disk changes.
type planner struct {
	ws       *workspace.Workspace
	files    map[string]*vfile
	order    []string
	dirs     []DirChange
	fileOps  map[string]int // path -> first op (1-based) using it as a file
	dirOps   map[string]int // path -> mkdir op (1-based)
	reasons  []string
	ops      []Op          // normalized
	replaced []Replacement // what each replace matched
	sums     map[contentKey]string
}

// contentKey names one content by its backing array. Operations never
// change a content in place (each builds a new slice), and a copy shares
// its source's: a hundred copies of one file are hashed once.
type contentKey struct {
	data *byte
	n    int
}

// sum is sha(b), computed once per distinct content.
func (p *planner) sum(b []byte) string {
	if len(b) == 0 {
		return sha(b)
	}
	k := contentKey{unsafe.SliceData(b), len(b)}
	if s, ok := p.sums[k]; ok {
		return s
	}
	if p.sums == nil {
		p.sums = map[contentKey]string{}
	}
	p.sums[k] = sha(b)
	return p.sums[k]
}

func newPlanner(ws *workspace.Workspace) *planner {
	return &planner{ws: ws, files: map[string]*vfile{}, fileOps: map[string]int{}, dirOps: map[string]int{}}
}

func opErr(i int, op Op, code envelope.Code, format string, args ...any) *envelope.Error {
	return envelope.Errorf(code, "operation %d (%s): %s", i+1, op.Type, fmt.Sprintf(format, args...)).With("operation", i+1)
}

// file loads a path through the jail.
func (p *planner) file(i int, op Op, raw string, access workspace.Access, field string) (*vfile, error) {
	if raw == "" {
		return nil, opErr(i, op, envelope.InvalidInput, "%s is required", field)
	}
	jp, err := p.ws.Jail.Resolve(raw, access)
	if err != nil {
		var e *envelope.Error
		if errors.As(err, &e) {
			e.Message = fmt.Sprintf("operation %d (%s): %s", i+1, op.Type, e.Message)
		}
		return nil, err
	}
	if jp.Rel == "." {
		return nil, opErr(i, op, envelope.InvalidInput, "%s names the workspace root, not a file", field)
	}
	if f, ok := p.files[jp.Rel]; ok {
		return f, nil
	}
	f := &vfile{rel: jp.Rel, abs: jp.Abs, outside: jp.Outside, mode: 0o644, origMode: 0o644}
	fi, err := os.Lstat(jp.Abs)
	switch {
	case errors.Is(err, fs.ErrNotExist) || isNotDir(err):
	case err != nil:
		return nil, opErr(i, op, envelope.Internal, "cannot stat %s: %v", jp.Rel, err)
	case fi.IsDir():
		f.origDir = true
	case !fi.Mode().IsRegular():
		return nil, opErr(i, op, envelope.InvalidInput, "%s is not a regular file (%s); edit works on files", jp.Rel, fi.Mode().Type())
	case fi.Size() > MaxFileBytes:
		return nil, opErr(i, op, envelope.InvalidInput, "%s is %d bytes, over the %d-byte limit for edits", jp.Rel, fi.Size(), MaxFileBytes)
	default:
		content, err := os.ReadFile(jp.Abs)
		if err != nil {
			return nil, opErr(i, op, envelope.Internal, "cannot read %s: %v", jp.Rel, err)
		}
		f.origExists, f.exists = true, true
		f.origContent, f.content = content, content
		f.origMode, f.mode = fi.Mode().Perm(), fi.Mode().Perm()
	}
	p.files[jp.Rel] = f
	p.order = append(p.order, jp.Rel)
	return f, nil
}

// claimFile records that op i uses rel as a file, refusing a path that a
// mkdir claims (itself or below) or whose ancestor is a file.
func (p *planner) claimFile(i int, op Op, f *vfile) error {
	if f.origDir {
		return opErr(i, op, envelope.EditConflict, "%s is a directory, not a file", f.rel).With("path", f.rel).With("reason", "not-a-file")
	}
	for d, j := range p.dirOps {
		if d == f.rel || strings.HasPrefix(d, f.rel+"/") {
			return opErr(i, op, envelope.EditConflict, "%s is used as a file here, but operation %d makes %s a directory", f.rel, j, d).With("path", f.rel).With("reason", "not-a-file")
		}
	}
	if err := p.ancestorsNotFiles(i, op, f.rel); err != nil {
		return err
	}
	if _, ok := p.fileOps[f.rel]; !ok {
		p.fileOps[f.rel] = i + 1
	}
	return nil
}

// ancestorsNotFiles refuses a path below something that is a file on disk
// or in this transaction.
func (p *planner) ancestorsNotFiles(i int, op Op, rel string) error {
	for dir := path.Dir(rel); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if g, ok := p.files[dir]; ok && g.exists {
			return opErr(i, op, envelope.EditConflict, "%s cannot be created: its parent %s is a file", rel, dir).With("path", rel).With("reason", "parent-not-directory")
		}
		if j, ok := p.fileOps[dir]; ok {
			return opErr(i, op, envelope.EditConflict, "%s cannot be created: operation %d uses its parent %s as a file", rel, j, dir).With("path", rel).With("reason", "parent-not-directory")
		}
		if fi, err := os.Lstat(p.ws.Root + "/" + dir); err == nil && !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
			return opErr(i, op, envelope.EditConflict, "%s cannot be created: its parent %s exists as a file", rel, dir).With("path", rel).With("reason", "parent-not-directory")
		}
	}
	return nil
}

func (p *planner) destructive(format string, args ...any) {
	p.reasons = append(p.reasons, fmt.Sprintf(format, args...))
}

// apply runs every operation in order.
func (p *planner) apply(ops []Op) error {
	if len(ops) == 0 {
		return envelope.Errorf(envelope.InvalidInput, "no operations: pass --op 'JSON' (repeatable) or --input with {\"operations\": [...]}")
	}
	if len(ops) > 1000 {
		return envelope.Errorf(envelope.InvalidInput, "%d operations in one transaction; the limit is 1000, split it", len(ops))
	}
	for i, op := range ops {
		if err := p.checkText(i, op); err != nil {
			return err
		}
		var err error
		switch op.Type {
		case "create":
			err = p.create(i, op)
		case "rewrite":
			err = p.rewrite(i, op)
		case "replace":
			err = p.replace(i, op)
		case "splice":
			err = p.splice(i, op)
		case "copy", "move":
			err = p.copyMove(i, op)
		case "delete":
			err = p.delete(i, op)
		case "mkdir":
			err = p.mkdir(i, op)
		case "":
			err = opErr(i, op, envelope.InvalidInput, "type is required: one of create, rewrite, replace, splice, copy, move, delete, mkdir")
		default:
			err = opErr(i, op, envelope.InvalidInput, "unknown type %q: use create, rewrite, replace, splice, copy, move, delete or mkdir", op.Type)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkText refuses content that still carries a read's line-number gutter.
func (p *planner) checkText(i int, op Op) error {
	for _, t := range []struct {
		field string
		text  *string
	}{{"content", op.Content}, {"replacement", op.Replacement}, {"search", &op.Search}} {
		if t.text == nil {
			continue
		}
		if !utf8.ValidString(*t.text) {
			return opErr(i, op, envelope.InvalidInput, "%s is not valid UTF-8", t.field)
		}
		if !op.AllowLineNumbers && hasGutter(*t.text) {
			return opErr(i, op, envelope.InvalidInput,
				"%s still carries the line-number gutter of a read (\"12 | \" or \"    12<TAB>\"); writing it would corrupt the file. Remove the numbers, or set allow_line_numbers: true if the text really starts with consecutive numbers", t.field)
		}
	}
	return nil
}

func (p *planner) expect(i int, op Op, f *vfile) error {
	if op.ExpectSHA256 == "" {
		return nil
	}
	got := ""
	if f.origExists {
		got = sha(f.origContent)
	}
	if !strings.EqualFold(got, op.ExpectSHA256) {
		return opErr(i, op, envelope.EditConflict, "%s is stale: expect_sha256 %s but the file's sha256 is now %s; read it again and redo the edit", f.rel, op.ExpectSHA256, orNone(got)).With("path", f.rel).With("reason", "stale").With("sha256", got)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(the file does not exist)"
	}
	return s
}

func (p *planner) create(i int, op Op) error {
	if op.Content == nil {
		return opErr(i, op, envelope.InvalidInput, "content is required (use \"\" for an empty file)")
	}
	f, err := p.target(i, op, op.Path)
	if err != nil {
		return err
	}
	if f.exists {
		if !op.Overwrite {
			return opErr(i, op, envelope.EditConflict, "%s already exists; use replace or splice to change it, or overwrite: true to replace it whole (destructive)", f.rel).With("path", f.rel).With("reason", "target-exists")
		}
		if f.origExists {
			p.destructive("create with overwrite over existing %s (use replace to change part of it)", f.rel)
		}
	}
	f.exists, f.content = true, []byte(*op.Content)
	return nil
}

func (p *planner) rewrite(i int, op Op) error {
	if op.Content == nil {
		return opErr(i, op, envelope.InvalidInput, "content is required")
	}
	f, err := p.target(i, op, op.Path)
	if err != nil {
		return err
	}
	if !f.exists && !op.CreateIfMissing {
		return opErr(i, op, envelope.NotFound, "%s does not exist; use create, or create_if_missing: true", f.rel).With("path", f.rel)
	}
	content := *op.Content
	if f.exists {
		if f.origExists {
			p.destructive("rewrite of existing %s (use replace to change part of it)", f.rel)
		}
		content = keepForm(f.content, content)
	}
	f.exists, f.content = true, []byte(content)
	return nil
}

// keepForm writes new whole-file content in the form of the old: a CRLF
// file keeps CR LF line ends and a file with a byte order mark keeps it,
// since a read shows neither. (To change them, delete and create.)
func keepForm(old []byte, content string) string {
	if eol.Of(old) == eol.CRLF {
		content = eol.ToCRLF(content)
	}
	if bytes.HasPrefix(old, []byte(eol.BOM)) && !strings.HasPrefix(content, eol.BOM) {
		content = eol.BOM + content
	}
	return content
}

func (p *planner) existing(i int, op Op) (*vfile, error) {
	f, err := p.target(i, op, op.Path)
	if err != nil {
		return nil, err
	}
	if !f.exists {
		return nil, opErr(i, op, envelope.NotFound, "%s does not exist; create it first", f.rel).With("path", f.rel)
	}
	return f, nil
}

func (p *planner) replace(i int, op Op) error {
	if op.Search == "" {
		return opErr(i, op, envelope.InvalidInput, "search is required and must not be empty")
	}
	if op.Replacement == nil {
		return opErr(i, op, envelope.InvalidInput, "replacement is required (use \"\" to delete the text)")
	}
	want := 1
	if op.ExpectedMatches != nil {
		want = *op.ExpectedMatches
		if want < 1 {
			return opErr(i, op, envelope.InvalidInput, "expected_matches must be 1 or more")
		}
		if op.ReplaceAll {
			return opErr(i, op, envelope.InvalidInput, "replace_all and expected_matches exclude each other: replace_all replaces every occurrence, expected_matches an exact count")
		}
	}
	f, err := p.existing(i, op)
	if err != nil {
		return err
	}
	ending := eol.Of(f.content)
	found := matches(f.content, op.Search, ending)
	n := len(found)
	if n == 0 {
		msg := fmt.Sprintf("search text not found in %s; read the file again and copy the text exactly", f.rel)
		if stripped := stripGutter(op.Search); stripped != op.Search && stripped != "" {
			if m := len(matches(f.content, stripped, ending)); m > 0 {
				msg += fmt.Sprintf(". If this text was copied from a read result, note that without its line-number gutter it would match %d time(s)", m)
			} else {
				msg += ". It carries what looks like a line-number gutter, but it would not match without it either"
			}
		}
		return opErr(i, op, envelope.EditConflict, "%s", msg).With("path", f.rel).With("matches", 0).With("reason", "no-match")
	}
	if !op.ReplaceAll && n != want {
		return opErr(i, op, envelope.EditConflict, "search text matches %d times in %s, expected %d; add surrounding text to make it unique, or set replace_all: true (or expected_matches: %d) to replace them all", n, f.rel, want, n).With("path", f.rel).With("matches", n).With("reason", "not-unique")
	}
	var b bytes.Buffer
	at := 0
	for _, m := range found {
		b.Write(f.content[at:m[0]])
		b.WriteString(eol.Like(*op.Replacement, ending, f.content[m[0]:m[1]]))
		at = m[1]
	}
	b.Write(f.content[at:])
	f.content = b.Bytes()
	p.replaced = append(p.replaced, Replacement{Operation: i + 1, Path: f.rel, Count: n})
	return nil
}

// matches finds the non-overlapping occurrences of search in content. In
// a file with CR LF line ends, a line end in search (as a read shows it,
// without the CR) matches either form, so text copied from a read matches.
func matches(content []byte, search, ending string) [][2]int {
	var out [][2]int
	if (ending == eol.CRLF || ending == eol.Mixed) && strings.Contains(search, "\n") {
		parts := strings.Split(eol.ToLF(search), "\n")
		for k := range parts {
			parts[k] = regexp.QuoteMeta(parts[k])
		}
		for _, m := range regexp.MustCompile(strings.Join(parts, `\r?\n`)).FindAllIndex(content, -1) {
			out = append(out, [2]int{m[0], m[1]})
		}
		return out
	}
	for at := 0; ; {
		k := bytes.Index(content[at:], []byte(search))
		if k < 0 {
			return out
		}
		out = append(out, [2]int{at + k, at + k + len(search)})
		at += k + len(search)
	}
}

func (p *planner) splice(i int, op Op) error {
	f, err := p.existing(i, op)
	if err != nil {
		return err
	}
	// A read shows neither the byte order mark nor CRs: lines are counted
	// without the mark, and it stays first whatever line 1 becomes.
	body, bom := bytes.CutPrefix(f.content, []byte(eol.BOM))
	lines := splitLines(body)
	if op.StartLine < 1 || op.StartLine > len(lines)+1 {
		return opErr(i, op, envelope.InvalidInput, "start_line %d is outside %s, which has %d lines: use 1 to %d", op.StartLine, f.rel, len(lines), len(lines)+1).With("path", f.rel)
	}
	if op.DeleteCount < 0 || op.StartLine-1+op.DeleteCount > len(lines) {
		return opErr(i, op, envelope.InvalidInput, "delete_count %d from line %d runs past the end of %s (%d lines): use 0 to %d", op.DeleteCount, op.StartLine, f.rel, len(lines), len(lines)-op.StartLine+1).With("path", f.rel)
	}
	nl := "\n"
	if bytes.Contains(body, []byte("\r\n")) {
		nl = "\r\n"
	}
	var insert []string
	if op.Content != nil && *op.Content != "" {
		insert = splitLines([]byte(*op.Content))
		if nl == "\r\n" {
			// A CRLF file keeps CRLF: inserted lines ending in a bare
			// "\n" get the file's terminator.
			for k, l := range insert {
				if strings.HasSuffix(l, "\n") && !strings.HasSuffix(l, "\r\n") {
					insert[k] = l[:len(l)-1] + "\r\n"
				}
			}
		}
		last := len(insert) - 1
		if !strings.HasSuffix(insert[last], "\n") && op.StartLine-1+op.DeleteCount < len(lines) {
			insert[last] += nl // lines follow: the inserted text ends its line
		}
	}
	head := lines[:op.StartLine-1]
	if len(insert) > 0 && len(head) > 0 && !strings.HasSuffix(head[len(head)-1], "\n") {
		head[len(head)-1] += nl
	}
	var b strings.Builder
	if bom {
		b.WriteString(eol.BOM)
	}
	for _, l := range head {
		b.WriteString(l)
	}
	for _, l := range insert {
		b.WriteString(l)
	}
	for _, l := range lines[op.StartLine-1+op.DeleteCount:] {
		b.WriteString(l)
	}
	f.content = []byte(b.String())
	return nil
}

func (p *planner) copyMove(i int, op Op) error {
	access := workspace.Read
	if op.Type == "move" {
		access = workspace.Write
	}
	src, err := p.file(i, op, op.From, access, "from")
	if err != nil {
		return err
	}
	if src.origDir {
		return opErr(i, op, envelope.InvalidInput, "%s is a directory; %s works on files", src.rel, op.Type)
	}
	if !src.outside {
		if err := p.claimFile(i, op, src); err != nil {
			return err
		}
	}
	if !src.exists {
		return opErr(i, op, envelope.NotFound, "%s does not exist", src.rel).With("path", src.rel)
	}
	if err := p.expect(i, op, src); err != nil {
		return err
	}
	dst, err := p.file(i, op, op.To, workspace.Write, "to")
	if err != nil {
		return err
	}
	if err := p.claimFile(i, op, dst); err != nil {
		return err
	}
	if dst == src {
		return opErr(i, op, envelope.InvalidInput, "from and to are the same file (%s)", src.rel)
	}
	if dst.exists {
		if !op.Overwrite {
			return opErr(i, op, envelope.EditConflict, "%s already exists; choose another target or pass overwrite: true (destructive)", dst.rel).With("path", dst.rel).With("reason", "target-exists")
		}
		if dst.origExists {
			p.destructive("%s with overwrite over existing %s", op.Type, dst.rel)
		}
	}
	// A new file never gains the executable bits: copying a readable
	// executable (a git hook sample, an allowPaths binary) to bin/ls would
	// let a command allowed as "ls" run the agent's code. An overwritten
	// file keeps its own permissions, as cp leaves them.
	if !dst.exists {
		dst.mode = src.mode &^ 0o111
	}
	dst.exists, dst.content = true, src.content
	if op.Type == "move" {
		p.destructive("move of %s to %s (a move removes its source; copy keeps it)", src.rel, dst.rel)
		src.exists, src.content = false, nil
	}
	return nil
}

func (p *planner) delete(i int, op Op) error {
	f, err := p.target(i, op, op.Path)
	if err != nil {
		return err
	}
	if !f.exists {
		if op.IgnoreMissing {
			return nil
		}
		return opErr(i, op, envelope.NotFound, "%s does not exist; pass ignore_missing: true if that is fine", f.rel).With("path", f.rel)
	}
	if f.origExists {
		p.destructive("delete of existing %s", f.rel)
	}
	f.exists, f.content = false, nil
	return nil
}

func (p *planner) mkdir(i int, op Op) error {
	if op.Path == "" {
		return opErr(i, op, envelope.InvalidInput, "path is required")
	}
	jp, err := p.ws.Jail.Resolve(op.Path, workspace.Write)
	if err != nil {
		var e *envelope.Error
		if errors.As(err, &e) {
			e.Message = fmt.Sprintf("operation %d (%s): %s", i+1, op.Type, e.Message)
		}
		return err
	}
	rel := jp.Rel
	if rel == "." {
		return opErr(i, op, envelope.InvalidInput, "path names the workspace root")
	}
	for q, j := range p.fileOps {
		if q == rel || strings.HasPrefix(rel, q+"/") {
			return opErr(i, op, envelope.EditConflict, "%s cannot be a directory: operation %d uses %s as a file", rel, j, q).With("path", rel).With("reason", "not-a-directory")
		}
	}
	existed := false
	fi, err := os.Lstat(jp.Abs)
	switch {
	case err == nil && fi.IsDir():
		existed = true
	case err == nil:
		return opErr(i, op, envelope.EditConflict, "%s already exists as a file", rel).With("path", rel).With("reason", "target-exists")
	}
	if err := p.ancestorsNotFiles(i, op, rel); err != nil {
		return err
	}
	if _, dup := p.dirOps[rel]; !dup {
		p.dirOps[rel] = i + 1
		p.dirs = append(p.dirs, DirChange{Path: rel, ExistedBefore: existed})
	}
	return nil
}

// target loads a write target, claims it as a file and checks expect_sha256.
func (p *planner) target(i int, op Op, raw string) (*vfile, error) {
	f, err := p.file(i, op, raw, workspace.Write, "path")
	if err != nil {
		return nil, err
	}
	if err := p.claimFile(i, op, f); err != nil {
		return nil, err
	}
	return f, p.expect(i, op, f)
}

// changes returns the net effect on each file, in first-touch order.
func (p *planner) changes() []FileChange {
	var out []FileChange
	for _, rel := range p.order {
		f := p.files[rel]
		if f.outside {
			continue
		}
		c := FileChange{Path: rel, ExistedBefore: f.origExists, Mode: uint32(f.mode), BeforeMode: uint32(f.origMode)}
		switch {
		case !f.origExists && f.exists:
			c.Change = "create"
		case f.origExists && !f.exists:
			c.Change = "delete"
		case f.origExists && f.exists && (!bytes.Equal(f.origContent, f.content) || f.mode != f.origMode):
			c.Change = "modify"
		default:
			continue
		}
		if f.origExists {
			c.BeforeSHA256 = p.sum(f.origContent)
		}
		if f.exists {
			c.AfterSHA256 = p.sum(f.content)
		}
		out = append(out, c)
	}
	return out
}

// befores is every touched path's starting hash ("" when absent), for the
// approval hash: the same operations against different files never match.
func (p *planner) befores() map[string]string {
	m := map[string]string{}
	for rel, f := range p.files {
		if f.origExists {
			m[rel] = p.sum(f.origContent)
		} else {
			m[rel] = ""
		}
	}
	return m
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// splitLines splits after each "\n", keeping terminators; a last line
// without one is kept as is.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := string(b)
	var out []string
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
