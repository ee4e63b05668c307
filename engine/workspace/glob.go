package workspace

import (
	"path"
	"runtime"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Patterns is a set of gitignore-like globs, used for denyPaths,
// protectedPatterns, list.ignore and --glob:
//   - a pattern without a slash matches a name at any depth (".env*" covers
//     "sub/.env.local");
//   - a pattern with a slash is anchored at the root ("src/*.go");
//   - a pattern that matches a directory covers everything under it;
//   - "**" spans directories.
//
// Matching folds case where the file system usually does (macOS, Windows).
type Patterns struct {
	pats []pattern
}

type pattern struct {
	glob     string
	anywhere bool   // no slash: match each name, not the whole path
	literal  bool   // no glob syntax: matching is comparing
	prefix   string // set when the glob is a literal and one final "*" (".env*")
}

// matchName matches one path element against an anywhere pattern.
func (pt pattern) matchName(name string) bool {
	if pt.literal {
		return name == pt.glob
	}
	if pt.prefix != "" {
		return strings.HasPrefix(name, pt.prefix)
	}
	if ok, _ := path.Match(pt.glob, name); ok {
		return true
	}
	if strings.Contains(pt.glob, "**") {
		ok, _ := doublestar.Match(pt.glob, name)
		return ok
	}
	return false
}

var foldCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// NewPatterns compiles globs; invalid ones were refused when settings loaded.
func NewPatterns(globs ...[]string) *Patterns {
	p := &Patterns{}
	for _, list := range globs {
		for _, g := range list {
			g = strings.TrimSpace(g)
			g = strings.TrimSuffix(g, "/")
			if g == "" {
				continue
			}
			if foldCase {
				g = strings.ToLower(g)
			}
			anchored := strings.Contains(g, "/")
			g = strings.TrimPrefix(g, "/")
			pt := pattern{glob: g, anywhere: !anchored, literal: !strings.ContainsAny(g, `*?[\`)}
			if head, ok := strings.CutSuffix(g, "*"); ok && !strings.ContainsAny(head, `*?[\`) {
				pt.prefix = head
			}
			p.pats = append(p.pats, pt)
		}
	}
	return p
}

// Empty reports whether there are no patterns.
func (p *Patterns) Empty() bool { return p == nil || len(p.pats) == 0 }

// Match reports whether the slash-separated path rel (relative to the root)
// or any of its parent directories matches a pattern.
func (p *Patterns) Match(rel string) bool {
	if p.Empty() || rel == "" || rel == "." {
		return false
	}
	if foldCase {
		rel = strings.ToLower(rel)
	}
	for _, pt := range p.pats {
		if pt.anywhere {
			for _, name := range strings.Split(rel, "/") {
				if pt.matchName(name) {
					return true
				}
			}
			continue
		}
		// Anchored: the path or one of its parents matches.
		for prefix := rel; ; {
			if ok, _ := doublestar.Match(pt.glob, prefix); ok {
				return true
			}
			i := strings.LastIndexByte(prefix, '/')
			if i < 0 {
				break
			}
			prefix = prefix[:i]
		}
	}
	return false
}

// MatchBelow is Match for a path whose parent directory is known not to
// match, as in a walk that checks every directory before it descends: only
// the last element and the whole path can match, so the parents are not
// tested again (a listing of 50k entries spent most of its time there).
func (p *Patterns) MatchBelow(rel string) bool {
	if p.Empty() || rel == "" || rel == "." {
		return false
	}
	if foldCase {
		rel = strings.ToLower(rel)
	}
	name := rel[strings.LastIndexByte(rel, '/')+1:]
	for _, pt := range p.pats {
		if pt.anywhere {
			if pt.matchName(name) {
				return true
			}
			continue
		}
		if pt.literal {
			if rel == pt.glob {
				return true
			}
		} else if ok, _ := doublestar.Match(pt.glob, rel); ok {
			return true
		}
	}
	return false
}

func checkGlob(g string) error {
	if !doublestar.ValidatePattern(strings.TrimPrefix(strings.TrimSuffix(g, "/"), "/")) {
		return errBadGlob
	}
	return nil
}

type globError string

func (e globError) Error() string { return string(e) }

const errBadGlob = globError("unbalanced [ or a bad escape")
