package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/workspace"
)

// Arguments that name files. A tool rule knows which of its operands and
// option values are paths; a program without one does not say, so every
// word it is given is taken as a path it may open: `cat .env`, `grep x
// secret/key`, `git show HEAD:.env` and `head -c 100 --file=.env` read
// a denyPaths file, and `gzip .git/config` rewrites a protected one. So:
//
//   - a word (or the value after = in --opt=VALUE, or the path after : in
//     REV:PATH or HOST:PATH) that resolves to a denyPaths match is a read
//     of it, refused for every program, ruled or not (for a ruled tool,
//     the words its table leaves unread);
//   - for a program without a rule that is not a known reader, such a word
//     that resolves to a protected path is a write of it, refused;
//   - in a shell line, a glob is expanded the way the shell will expand
//     it, and each match is such a word (`cat .e*`, `gzip .g?t/*`).
//
// Symbolic links are followed, so a link the agent made to .env is .env.

// readers only read the files they are given (no option of theirs writes
// a file named on the line): a protected path is fine for them.
var readers = setOf("cat", "head", "tail", "grep", "egrep", "fgrep", "ls", "wc", "diff", "cmp", "comm", "stat", "du",
	"od", "hexdump", "strings", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum",
	"base64", "base32", "nl", "cut", "join", "paste", "fold", "fmt", "column", "expand", "unexpand", "tac", "rev",
	"readlink", "realpath", "jq", "zcat", "bzcat", "xzcat", "zstdcat", "file")

// textOnly print or test their words and open no file named by them
// (echo .env >> .gitignore is an ordinary line).
var textOnly = setOf("echo", "printf", "test", "[", "true", "false", "basename", "dirname", "pwd", "type", "which", "expr", "seq", "sleep", "yes", "date")

// argumentPaths checks the words of a command that has no rule of its own
// (ruled tools check theirs through argPath from their operands).
func (c *checker) argumentPaths(exe string, args []word) {
	low := strings.ToLower(exe)
	if textOnly[low] {
		return
	}
	write := !readers[low]
	for _, w := range args {
		if c.refused {
			return
		}
		if w.dynamic != "" {
			c.globPaths(exe, w, write)
			continue
		}
		pathCandidates(w.text, func(p string) { c.argPath(exe, p, write) })
		if !c.refused {
			c.namesFromFile(exe, w.text, !readers[low])
		}
	}
}

// nameListOptions are the long options by which programs take the names
// of the files to open from a file (wc and du --files0-from, cpio and
// rsync-style --files-from, xargs-style --arg-file).
var nameListOptions = []string{"--files0-from", "--files-from", "--from-file", "--file-list", "--filelist", "--arg-file", "--args-file", "--pathspec-from-file"}

// namesFromFile refuses, for a program without a rule, a word that makes
// it read names or arguments from a file: a name-list option, or (for a
// program that is not a known reader) @FILE naming a file, the response
// file of gcc, clang, javac, java, ld and the binutils, whose words are
// read as more arguments (options included). Those names are not on the
// line, and the file can change after the check.
func (c *checker) namesFromFile(exe, s string, responseFiles bool) {
	for _, o := range nameListOptions {
		if s == o || strings.HasPrefix(s, o+"=") {
			c.refuse(DeniedPattern, exe, "", "`%s %s` is refused: it reads the names of the files to open from a file, names the policy cannot check against denyPaths and protected paths; name the files on the command line", exe, s)
			return
		}
	}
	f, ok := strings.CutPrefix(s, "@")
	if !responseFiles || !ok || f == "" {
		return
	}
	for _, d := range c.dirs {
		p := f
		if !filepath.IsAbs(p) && d != "" && d != "." {
			p = d + "/" + p
		}
		if res, err := c.ws.Jail.Resolve(p, workspace.Read); f == "-" || strings.HasPrefix(f, "/dev/") || strings.HasPrefix(f, "/proc/") || err == nil && isFile(res.Abs) || c.resolved[resolvedKey{workspace.Write, p}] {
			c.refuse(DeniedPattern, exe, f, "`%s %s` is refused: %s reads more arguments (file names and options) from the response file %s, which the policy cannot check (the agent can write it); pass the arguments on the command line", exe, s, exe, f)
			return
		}
	}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// pathCandidates calls f with the paths a word may name: itself, the
// value after the first = of an option or KEY=VALUE, the part after a :
// (REV:PATH, HOST:PATH), and in a short-option bundle every tail (-f.env).
func pathCandidates(s string, f func(string)) {
	if s == "" || s == "-" || s == "--" {
		return
	}
	if rest, ok := strings.CutPrefix(s, "@"); ok && rest != "" {
		f(rest) // a response file (gcc @args), a scoped name (@types/node)
	}
	if !strings.HasPrefix(s, "-") {
		f(s)
	} else if len(s) > 2 && s[1] != '-' && !strings.ContainsRune(s, '=') {
		// -f.env, -rf.env: a short option's value can start after any
		// letter of a bundle
		for k := 2; k < len(s); k++ {
			f(s[k:])
		}
	}
	if _, v, ok := strings.Cut(s, "="); ok && v != "" {
		f(v)
		s = v
	}
	if i := strings.IndexByte(s, ':'); i >= 0 && i+1 < len(s) {
		f(s[i+1:])
		if j := strings.LastIndexByte(s, ':'); j > i && j+1 < len(s) {
			f(s[j+1:])
		}
	}
}

// argPath refuses a word that resolves to a denyPaths match, or (write) to
// a protected path, from every directory the line may be in.
func (c *checker) argPath(exe, p string, write bool) {
	if c.refused || p == "" || p == "." || strings.IndexByte(p, 0) >= 0 {
		return
	}
	for _, d := range c.dirs {
		full := p
		if !filepath.IsAbs(full) && d != "" && d != "." {
			full = d + "/" + full
		}
		key := argKey{full, write}
		if c.argSeen[key] {
			continue
		}
		access := workspace.Read
		if write {
			access = workspace.Write
		}
		_, err := c.ws.Jail.Resolve(full, access)
		var e *envelope.Error
		if err != nil && errors.As(err, &e) {
			if r, _ := e.Details["reason"].(string); r == "denied" {
				c.refuse(PathEscape, exe, p, "`%s` is given %s, which matches denyPaths: the file is neither readable nor writable through aw, whatever program opens it; leave it out", exe, p)
				return
			}
			if write && e.Code == envelope.ProtectedPath {
				c.refuse(PathEscape, exe, p, "PROTECTED: `%s` is given %s, a protected path (.git/**, .agentic/** and protectedPatterns), and aw has no rule saying %s only reads what it is given, so it could write it; read it with cat, grep or `aw inspect`, and change protected files only as a human", exe, p, exe)
				return
			}
		}
		if c.argSeen == nil {
			c.argSeen = map[argKey]bool{}
		}
		c.argSeen[key] = true
	}
}

// argKey is one word checked from one directory, as a read or a write.
type argKey struct {
	path  string
	write bool
}

// maxGlobMatches bounds the files one glob is expanded to for the check.
const maxGlobMatches = 4096

// globPaths expands a word that is dynamic only because it is a glob, from
// every directory the line may be in, and checks each match. Other
// dynamic words ($x, $(…)) are refused elsewhere when a rule could read
// them; their value cannot be known here.
func (c *checker) globPaths(exe string, w word, write bool) {
	if w.glob == nil {
		return
	}
	for _, d := range c.dirs {
		base := c.ws.Jail.Root
		if d != "" && d != "." {
			base = filepath.Join(base, d)
		}
		pattern := *w.glob
		if !filepath.IsAbs(pattern) {
			pattern = filepath.Join(base, pattern)
		}
		matches, err := filepath.Glob(pattern)
		if err != nil {
			c.refuse(UnsupportedSyntax, exe, w.text, "the glob %s cannot be read (%v); list the files literally", w.text, err)
			return
		}
		if len(matches) > maxGlobMatches {
			c.refuse(UnsupportedSyntax, exe, w.text, "the glob %s matches more than %d files; narrow it", w.text, maxGlobMatches)
			return
		}
		for _, m := range matches {
			if c.argPath(exe, m, write); c.refused {
				c.v.Path = w.text
				c.v.Message = "the glob " + w.text + " matches " + relOrAbs(c.ws.Jail.Root, m) + ": " + strings.ReplaceAll(c.v.Message, c.ws.Jail.Root+string(filepath.Separator), "")
				return
			}
		}
	}
}
