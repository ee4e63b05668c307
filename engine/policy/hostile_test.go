package policy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentic-workspace/aw/engine/workspace"
)

// noDeny: no deny rules, so values decided at run time are not refused
// wholesale and globs are checked by their expansion.
func noDeny(s *workspace.Settings) {
	s.Commands.Deny, s.Commands.DenyPatterns = nil, nil
	s.Commands.Allow = append(s.Commands.Allow, "gzip", "xz", "jq", "cat")
}

func withAllow(names ...string) func(*workspace.Settings) {
	return func(s *workspace.Settings) { s.Commands.Allow = append(s.Commands.Allow, names...) }
}

// hostileFamilies are the families a hostile review broke, one or more
// variants each, beside the ordinary lines of the same tools that must
// stay allowed.
var hostileFamilies = []tcase{
	// a program without a rule given a denied path reads it
	{line: "cat .env", reason: PathEscape, path: ".env"},
	{line: "head -c 10 .env", reason: PathEscape},
	{line: "grep -r x --file=.env sub", reason: PathEscape},
	{line: "git show HEAD:.env", reason: PathEscape},
	{line: "git log -p -- .env", reason: PathEscape},
	{line: "git cat-file -p HEAD:sub/../.env", reason: PathEscape},
	{line: "cat envlink", reason: PathEscape, setup: func(s *workspace.Settings) {}},
	{line: "grep -f.env x README.md", reason: PathEscape},
	{line: "grep -rf.env x", reason: PathEscape},
	{line: "find .env -exec cat {} +", reason: PathEscape},
	{line: "cat README.md go.mod"},
	{line: "grep -rn foo sub"},
	{line: "echo .env"},
	{line: "git log -p -- README.md"},
	{line: "cat .git/config"},
	// a program without a rule given a protected path may write it
	{line: "gzip .git/config", reason: PathEscape, setup: noDeny},
	{line: "xz -k .agentic/config.json", reason: PathEscape, setup: noDeny},
	{line: "jq . .agentic/config.json", setup: noDeny},
	{line: "gzip -k README.md", setup: noDeny},
	// a glob is what it matches
	{sh: true, line: "cat .e*", reason: PathEscape, setup: noDeny},
	{sh: true, line: "cat .en?", reason: PathEscape, setup: noDeny},
	{sh: true, line: "gzip .g?t/config", reason: PathEscape, setup: noDeny},
	{sh: true, line: "gzip -r .agent*", reason: PathEscape, setup: noDeny},
	{sh: true, line: "cat '.e'nv*", reason: PathEscape, setup: noDeny},
	{sh: true, line: "cat *.md", setup: noDeny},
	{sh: true, line: "cat 'R*'", setup: noDeny},
	{sh: true, line: "cat '.e['*", setup: noDeny}, // the quoted [ is literal: .e\[* matches nothing, not .env
	{sh: true, line: "cd sub && cat ../.e*", reason: PathEscape, setup: noDeny},
	// a protected working directory: programs write into their cwd
	{sh: true, line: "cd .git/hooks && nohup ls", reason: PathEscape},
	{sh: true, line: "cd .agentic; npm init -y", reason: PathEscape},
	{sh: true, line: "pushd .git && ls", reason: PathEscape},
	{sh: true, line: "cd sub && ls ../.git"},
	// sed's regex end
	{line: "sed 's/[/]/;p;/w /tmp/x' README.md", reason: DeniedPattern},
	{line: "sed -n '\\,[,],;p;,e' README.md", reason: DeniedPattern},
	{line: "sed -i'.git/hooks/*' s/a/b/ README.md", reason: DeniedPattern},
	{line: "sed 's/[/]/_/g' README.md"},
	// awk writing or choosing its files
	{line: `awk '{print a["}"] > "/tmp/x"}' README.md`, reason: DeniedPattern},
	{line: `awk 'BEGIN{ARGV[1]=".env";ARGC=2}{print}'`, reason: DeniedPattern},
	{line: `awk '$2 > 3 {print $1}' README.md`},
	// environment variables that load code or name programs, files, options
	{line: "env GCONV_PATH=. iconv -f x -t y README.md", reason: DeniedPattern, setup: withAllow("iconv")},
	{line: "env CLASSPATH=. java X", reason: DeniedPattern},
	{line: "env OPENSSL_CONF=x git fetch", reason: DeniedPattern},
	{line: "env LUA_INIT=x lua", reason: DeniedPattern},
	{line: "env GOBIN=/tmp go build", reason: DeniedPattern},
	{line: "env RSYNC_RSH=./evil rsync a host:b", reason: DeniedPattern},
	{line: "env ZIP=-TT./evil zip out.zip README.md", reason: DeniedPattern},
	{line: "env KUBECONFIG=x kubectl get pods", reason: DeniedPattern},
	{line: "env POSIXLY_CORRECT=1 sed p README.md", reason: DeniedPattern},
	{line: "env CFLAGS=-fplugin=./x.so make", reason: DeniedPattern},
	{sh: true, line: "ZDOTDIR=. zsh -c true", reason: DeniedPattern},
	{line: "env GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build ./..."},
	{line: "env NODE_ENV=test CI=1 DEBUG=x npm test"},
	{sh: true, line: "RUST_LOG=debug TZ=UTC LC_ALL=C go test ./..."},
	// git's work tree
	{line: "git --work-tree=.git checkout HEAD -- .", reason: PathEscape},
	{line: "git -C sub --work-tree=../.agentic restore .", reason: PathEscape},
	{line: "git apply --unsafe-paths x.patch", reason: DeniedPattern},
	// build and transfer tools
	{line: "make --ev='x:;id'", reason: NestedCommand},
	{line: "make -C /tmp", reason: PathEscape},
	{line: "make CC=./evil", reason: DeniedPattern},
	{line: "make CFLAGS=-O2 test"},
	{line: "make X='$(shell id)'", reason: DeniedPattern},
	{line: "go vet -vettool=./evil ./...", reason: DeniedPattern},
	{line: "go build -ldflags=-extld=./evil .", reason: DeniedPattern},
	{line: "go -C /tmp build", reason: PathEscape},
	{line: "go install ./...", reason: DeniedPattern},
	{line: "go generate ./...", reason: NestedCommand},
	{line: "go test ./... -args -test.coverprofile=/tmp/c", reason: PathEscape},
	{line: "go test -run TestX ./... -v -count=1"},
	{line: "npm --node-options=--require=./x.js test", reason: DeniedPattern},
	{line: "npm install -g x", reason: DeniedPattern},
	{line: "npm exec -- rm x", reason: DeniedExecutable},
	{line: "npm run build"},
	{line: "rsync -a sub/ .git/hooks/", reason: PathEscape},
	{line: "rsync -a .env sub/", reason: PathEscape},
	{line: "rsync -vrse ./evil a host:b", reason: DeniedPattern},
	{line: "rsync -a sub/ dist/"},
	{line: "zip -TT./evil -T out.zip README.md", reason: DeniedPattern, setup: withAllow("zip")},
	{line: "zip /tmp/o.zip README.md", reason: PathEscape, setup: withAllow("zip")},
	{line: "zip -r out.zip sub", setup: withAllow("zip")},
	{line: "unzip out.zip", reason: DeniedPattern, setup: withAllow("unzip")},
	{line: "patch -p1 -i x.patch", reason: DeniedPattern, setup: withAllow("patch")},
	{line: "scp -qS ./evil a host:b", reason: DeniedPattern, setup: withAllow("scp")},
	{line: "scp README.md .git/hooks/pre-commit", reason: PathEscape, setup: withAllow("scp")},
	{line: "scp -o ProxyCommand=id a host:b", reason: DeniedPattern, setup: withAllow("scp")},
	{line: "emacs -eval '(shell-command \"id\")'", reason: DeniedPattern, setup: withAllow("emacs")},
	{line: "emacs -l x.el", reason: NestedCommand, setup: withAllow("emacs")},
	// git subcommands that move, delete or rewrite files: every operand is
	// a write through the jail, however git would read it as a pathspec
	{line: "git mv .agentic/config.json sub/", reason: PathEscape},
	{line: "git mv -k .env sub/x", reason: PathEscape},
	{line: "git mv link/x sub/", reason: PathEscape},
	{line: "git rm -r --cached .git", reason: PathEscape},
	{line: "git rm link/x", reason: PathEscape},
	{line: "git checkout HEAD~1 -- link/x", reason: PathEscape},
	{line: "git restore -s HEAD~1 -- ../x", reason: PathEscape},
	{line: "git clean -f .agentic", reason: PathEscape},
	{line: "git checkout -- ':(icase).AGENTIC/config.json'", reason: DeniedPattern},
	{line: "git restore ':(glob).agentic/**'", reason: DeniedPattern},
	{line: "git add -f ':(attr:x).agentic'", reason: DeniedPattern},
	{line: "git add -f '.agenti?/config.json'", reason: PathEscape, files: []string{".agentic/config.json"}},
	{line: "git add -f '*onfig.json'", reason: PathEscape, files: []string{".agentic/config.json"}},
	{line: "git checkout -- ':/.agentic/config.json'", reason: PathEscape},
	{line: "git --icase-pathspecs checkout -- .AGENTIC", reason: DeniedPattern},
	{line: "git --glob-pathspecs add -f x", reason: DeniedPattern},
	{line: "git log -p -- '.en*'", reason: PathEscape},
	{line: "git grep SECRET -- '.e[n]v'", reason: PathEscape},
	{line: "git log -p -- :/.env", reason: PathEscape},
	{line: "git diff -- ':(top).env'", reason: PathEscape},
	{line: "git rm --pathspec-from-file=list.txt", reason: DeniedPattern},
	{line: "git log --pathspec-from-file=list.txt", reason: DeniedPattern},
	{line: "git mv README.md sub/"},
	{line: "git rm --cached README.md"},
	{line: "git checkout main"},
	{line: "git checkout -- README.md"},
	{line: "git restore --staged README.md"},
	{line: "git clean -fd sub"},
	{line: "git log -- ':!README.md'"},
	{line: "git grep -n foo -- '*.go'"},
	{line: "git --literal-pathspecs log -- '*.go'"},
	{line: "git add :/"},
	// options that open the files another file names: a tags file, an
	// error file, a list of names, a response file
	{line: "less -t main", reason: DeniedPattern},
	{line: "less -T tags README.md", reason: DeniedPattern},
	{line: "less --tag=main", reason: DeniedPattern},
	{line: "vim -t main", reason: DeniedPattern},
	{line: "view -t main", reason: DeniedPattern, setup: withAllow("view")},
	{line: "vi -Rtmain", reason: DeniedPattern, setup: withAllow("vi")},
	{line: "vim -q errors.txt", reason: DeniedPattern},
	{line: "tar -cf a.tar -T list.txt", reason: DeniedPattern},
	{line: "tar --files-f=list.txt -cf a.tar", reason: DeniedPattern},
	{line: "rsync -a --files-from=list.txt . dist/", reason: DeniedPattern},
	{line: "find -files0-from list.txt -name x", reason: DeniedPattern},
	{line: "sort --files0-from=list.txt", reason: DeniedPattern},
	{line: "wc --files0-from=list.txt", reason: DeniedPattern, setup: withAllow("wc")},
	{line: "du --files-from=list.txt", reason: DeniedPattern, setup: withAllow("du")},
	{line: "gcc @list.txt", reason: DeniedPattern, setup: withAllow("gcc")},
	{line: "javac @list.txt", reason: DeniedPattern, setup: withAllow("javac")},
	{line: "javac @.env", reason: PathEscape, setup: withAllow("javac")},
	{sh: true, line: "printf '.env\\n' > args && gcc @args", reason: DeniedPattern, setup: withAllow("gcc")},
	{sh: true, line: "echo .agentic/config.json | git update-index --add --stdin", reason: DeniedPattern},
	{sh: true, line: "echo .agentic/config.json | git checkout-index -f --stdin", reason: DeniedPattern},
	{sh: true, line: "echo .env | git hash-object -w --stdin-paths", reason: DeniedPattern},
	{sh: true, line: "echo HEAD:.env | git cat-file --batch", reason: DeniedPattern},
	{line: "go build -overlay=o.json ./...", reason: DeniedPattern},
	{line: "go build -gcflags=-cpuprofile=/tmp/x .", reason: DeniedPattern},
	{line: "go build '-ldflags=all=-o /tmp/x' .", reason: DeniedPattern},
	{line: "go build -gcflags=all=-embedcfg=e.json .", reason: DeniedPattern},
	{line: "go build -pgo=.env .", reason: PathEscape},
	{line: "go build -gcflags='all=-N -l' -ldflags='-s -w -X main.v=1' ."},
	{line: "man -l x.1", reason: DeniedPattern},
	{line: "man ./x.1", reason: DeniedPattern},
	{line: "man -M sub git", reason: DeniedPattern},
	{line: "man -k printf"},
	{sh: true, line: "echo README.md | git check-ignore --stdin"},
	{line: "git cat-file --batch-check --batch-all-objects"},
	{line: "tar -cf a.tar -T list.txt", setup: withAllow("tar -T")},
	{line: "less -N README.md"},
	{line: "vim -R README.md"},
	{line: "gcc -O2 -o sub/x x.c", setup: withAllow("gcc")},
	{line: "npm install @types/node"},
}

func TestHostileFamilies(t *testing.T) {
	for _, tc := range hostileFamilies {
		t.Run(name(tc), func(t *testing.T) {
			ws := fixture(t)
			if tc.sh {
				ws.Settings.Commands.Interpreter = "sh"
			}
			if tc.setup != nil {
				tc.setup(&ws.Settings)
			}
			os.Symlink(".env", filepath.Join(ws.Root, "envlink"))
			os.WriteFile(filepath.Join(ws.Root, "list.txt"), []byte(".env\n"), 0o644)
			for _, rel := range tc.files {
				os.WriteFile(filepath.Join(ws.Root, rel), nil, 0o644)
			}
			v := Check(ws, Request{Line: tc.line})
			if tc.reason == "" {
				if !v.Allowed {
					t.Fatalf("refused (%s): %s", v.Reason, v.Message)
				}
				return
			}
			if v.Allowed || v.Reason != tc.reason {
				t.Fatalf("allowed=%v reason %s (%s), want %s", v.Allowed, v.Reason, v.Message, tc.reason)
			}
			if tc.path != "" && v.Path != tc.path {
				t.Errorf("path %q, want %q", v.Path, tc.path)
			}
		})
	}
}

// TestGitPatchTargets: git apply and git am write the files the patch
// names; a protected one among them is refused, however the names are
// written.
func TestGitPatchTargets(t *testing.T) {
	ws := fixture(t)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(ws.Root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ok.patch", "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-x\n+y\n")
	write("evil.patch", "diff --git a/x b/x\n--- /dev/null\n+++ b/.agentic/config.json\n@@ -0,0 +1 @@\n+{}\n")
	write("quoted.patch", "--- /dev/null\n+++ \"b/.agentic/c\\157nfig.json\"\n@@ -0,0 +1 @@\n+{}\n")
	write("rename.patch", "diff --git a/README.md b/README.md\nrename from README.md\nrename to .git/hooks/pre-commit\n")
	write("strip.patch", "--- /dev/null\n+++ x/y/.agentic/config.json\n")
	for line, want := range map[string]string{
		"git apply ok.patch":                      "",
		"git apply --check evil.patch":            "",
		"git apply evil.patch":                    PathEscape,
		"git apply --cached evil.patch":           PathEscape,
		"git apply quoted.patch":                  PathEscape,
		"git apply rename.patch":                  PathEscape,
		"git apply -p3 strip.patch":               PathEscape,
		"git apply --directory=.agentic ok.patch": PathEscape,
		"git am evil.patch":                       PathEscape,
	} {
		v := Check(ws, Request{Line: line})
		if want == "" && !v.Allowed || want != "" && (v.Allowed || v.Reason != want) {
			t.Errorf("%s: allowed=%v %s (%s), want %q", line, v.Allowed, v.Reason, v.Message, want)
		}
	}
}
