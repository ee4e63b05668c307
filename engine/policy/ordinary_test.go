package policy

import "testing"

// TestOrdinaryDevelopmentLines: the tool tables fail closed, so every
// option an ordinary development line uses must be in them.
func TestOrdinaryDevelopmentLines(t *testing.T) {
	ws := fixture(t)
	ws.Settings.Commands.Interpreter = "sh"
	ws.Settings.Commands.Allow = append(ws.Settings.Commands.Allow, "xargs", "mv", "touch", "chmod", "ln", "rm", "vi")
	ws.Settings.Commands.Deny = []string{"curl"}
	for _, l := range []string{
		"git status --short", "git status -s", "git status --porcelain=v1", "git diff HEAD", "git diff --staged", "git diff --name-status main...HEAD", "git diff -U0", "git diff --word-diff",
		"git log --oneline --decorate --graph -20", "git log -p -1", "git log --stat", "git log --pretty=format:'%h %s' -n 10", "git log --since=yesterday --author=me", "git log main..HEAD --oneline", "git log -S foo", "git log -G bar --oneline", "git log --follow -- README.md", "git log --format='%H%n%an' -3",
		"git show HEAD", "git show --stat HEAD~2", "git show HEAD:README.md", "git show -s --format=%ci HEAD",
		"git add .", "git add -p", "git add --all", "git commit -am 'x'", "git commit --amend --no-edit", "git commit -m x -m y", "git commit --allow-empty -m x",
		"git branch", "git branch -vv", "git branch -d old", "git branch --show-current", "git checkout -b feat", "git checkout main", "git checkout -- README.md", "git switch -c x", "git restore --staged README.md",
		"git stash", "git stash pop", "git stash list", "git stash show -p", "git stash push -m wip -- README.md",
		"git rebase main", "git rebase -i HEAD~3", "git rebase --continue", "git merge --no-ff feat", "git cherry-pick abc", "git revert HEAD", "git reset HEAD~1", "git reset --soft HEAD~1",
		"git fetch", "git fetch origin main", "git fetch --all --prune", "git pull --rebase", "git push", "git push -u origin feat", "git push origin HEAD", "git remote -v", "git remote add origin git@github.com:x/y.git",
		"git tag v1.0", "git tag -a v1 -m x", "git describe --tags", "git rev-parse HEAD", "git rev-parse --abbrev-ref HEAD", "git ls-files", "git ls-files -m", "git blame README.md", "git blame -L 1,10 README.md", "git grep -n foo -- '*.go'",
		"git clean -fd", "git clean -n", "git mv a b", "git rm --cached x", "git config user.name", "git config --list", "git config --get remote.origin.url", "git shortlog -sn", "git reflog", "git cat-file -p HEAD", "git worktree list", "git submodule status", "git bisect start", "git init", "git clone https://github.com/x/y.git", "git --version", "git help status", "git count-objects -v", "git gc",
		"sed -n '10,20p' README.md", "sed -i '' README.md", "sed -e 's/a/b/' -e 's/c/d/' README.md", "sed 's/[[:space:]]*$//' README.md", "sed -n '/start/,/end/p' README.md", "sed '1d' README.md", "sed -i.bak -E 's/(x)/\\1/g' README.md",
		"awk 'NR==1' README.md", "awk -F'\\t' '{print $2}' README.md", "awk '{s+=$1} END {print s}' README.md", "awk 'BEGIN{FS=\",\"} {print $1}' README.md",
		"sort -u README.md", "sort -t: -k3 -n README.md", "sort -h README.md", "find . -type f -name '*.go' | xargs grep -l foo", "find . -maxdepth 1 -type d", "find . -name '*.go' -newer go.mod", "find . -path ./vendor -prune -o -name '*.go' -print", "find . -size +1M", "find . -mtime -1 -type f",
		"tar -xzf dist.tar.gz -O README.md", "tar -tf x.tar", "tar -cjf x.tbz2 sub", "tar --exclude=.git -czf x.tgz .",
		"rg -n foo", "rg -i --type go foo", "rg -l foo sub", "rg --files", "rg -g '!vendor' foo", "rg -w foo -A 2 -B 2",
		"less README.md", "man git", "man 5 crontab",
		"mv a.txt b.txt", "touch new.txt", "chmod +x run.sh", "rm -rf build", "mkdir -p a/b/c", "cp -r sub sub2", "tee out.txt", "ln -s go.mod go.mod.link",
		"timeout 30 go test ./...", "env CGO_ENABLED=0 go build", "nice -n 10 make", "command -v node", "time make",
		"npx eslint .", "npm run lint -- --fix", "npm ci", "npm install --save-dev eslint",
	} {
		if v := Check(ws, Request{Line: l}); !v.Allowed {
			t.Errorf("%q: %s: %s", l, v.Reason, v.Message)
		}
	}
}
