// dispose(x) in a comment
fn f(a: Option<T>, b: i32) -> i32 {
    if let Some(x) = a { x.dispose(); }
    let s = "dispose(x)";
    dispose(  b );
    println!("{} {}", 1, s);
    b + 1
}

impl T {
    fn close(&self) -> i32 { self.x + 1 }
}
