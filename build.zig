//! ringscan build. Sources are discovered by folder so that adding a module never edits this
//! file: every .c/.S under the library folders goes into libringscan (static and shared),
//! bench/*.c into a static bench library (not installed; the library never contains it),
//! cli/*.c into the `ringscan` binary (linked with both), and each tests/unit/test_*.c becomes
//! one test program (linked with the bench library when it includes a bench/ header).
//! `zig build [install] [--prefix P]` installs the package and nothing else: include/ringscan.h,
//! lib/libringscan.a, lib/libringscan.so.0.1.0 (SONAME libringscan.so.0, with the .so.0 and .so
//! links), lib/pkgconfig/ringscan.pc and bin/ringscan. `zig build tests` installs that and the
//! test programs into <prefix>/tests/ (zig-out/tests/, what tests/run.sh runs). Sanitizer and fuzz builds use Debian's clang
//! (scripts/sanitize.sh, scripts/fuzz.sh) because Zig lacks AddressSanitizer.
const std = @import("std");

const lib_dirs = [_][]const u8{ "common", "runtime", "io", "format", "filter", "scan" };
/// bench/ (workload generators, shapes, benchmarks) uses the library's internals; `gen`,
/// `bench` and a few tests link it, hosts never see it.
const bench_dir = "bench";
/// The library's version: the SONAME's major, and ringscan.pc's Version (ringscan.h's
/// RINGSCAN_VERSION_* say the same; tests/cli/install.sh checks that they agree).
const version = std.SemanticVersion{ .major = 0, .minor = 1, .patch = 0 };
/// What the library links. Not mimalloc: a library must not replace its host's malloc (a
/// Python that loaded libringscan.so linked with it crashed importing pyarrow afterwards);
/// only the `ringscan` binary links it (build below). Not libcurl nor ICU either: both are
/// loaded on first use (io/curl_dl.h, common/icu_dl.h; their headers are still needed).
const sys_libs = [_][]const u8{ "uring", "xxhash", "zstd", "snappy", "lz4", "z", "brotlidec", "brotlienc", "m", "pthread" };
/// Assertions stay on in every mode (-UNDEBUG): they guard invariants, as in TigerBeetle.
pub const c_flags = [_][]const u8{ "-std=c17", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE", "-fno-omit-frame-pointer", "-UNDEBUG" };

fn lessThan(_: void, a: []const u8, b: []const u8) bool {
    return std.mem.lessThan(u8, a, b);
}

/// Lists `dir/*{ext}` relative to the build root, sorted so builds are reproducible.
fn collect(b: *std.Build, dir: []const u8, prefix: []const u8, exts: []const []const u8) [][]const u8 {
    var list = std.ArrayList([]const u8).init(b.allocator);
    var d = b.build_root.handle.openDir(dir, .{ .iterate = true }) catch return list.items;
    defer d.close();
    var it = d.iterate();
    while (it.next() catch null) |e| {
        if (e.kind != .file or !std.mem.startsWith(u8, e.name, prefix)) continue;
        for (exts) |x| {
            if (std.mem.endsWith(u8, e.name, x)) list.append(b.fmt("{s}/{s}", .{ dir, e.name })) catch @panic("oom");
        }
    }
    std.mem.sort([]const u8, list.items, {}, lessThan);
    return list.items;
}

/// True when the source file includes a bench/ header (so its program links the bench library).
fn usesBench(b: *std.Build, file: []const u8) bool {
    const text = b.build_root.handle.readFileAlloc(b.allocator, file, 1 << 24) catch @panic("unreadable test source");
    return std.mem.indexOf(u8, text, "#include \"bench/") != null;
}

/// The shared library hides everything that ringscan.h does not mark RINGSCAN_API.
const so_flags = c_flags ++ [_][]const u8{"-fvisibility=hidden"};

fn addLibSources(b: *std.Build, m: *std.Build.Module, flags: []const []const u8) void {
    // Every mode but ReleaseFast is a checked build: vec.c poisons grown buffers there, so a
    // reader of bytes nobody wrote fails the tests instead of seeing zeroes.
    if (m.optimize != .ReleaseFast) m.addCMacro("RINGSCAN_CHECKED", "1");
    for (lib_dirs) |dir| {
        const files = collect(b, dir, "", &.{ ".c", ".S" });
        if (files.len > 0) m.addCSourceFiles(.{ .files = files, .flags = flags });
    }
    m.addIncludePath(b.path("."));
    m.addIncludePath(b.path("include"));
    m.link_libc = true;
}

/// The Debian libraries; linked into executables and the shared library, never into the
/// static archive (its users link them, as `pkg-config`-less C projects do).
fn linkDeps(m: *std.Build.Module) void {
    for (sys_libs) |l| m.linkSystemLibrary(l, .{ .use_pkg_config = .no });
    m.link_libc = true;
}

/// What a program linking the bench library needs beyond linkDeps: Boost.Context's
/// jump_fcontext, the reference `bench runtime` holds the coroutine switch to (Debian
/// libboost-context-dev; the archive, so the binary has no libboost runtime dependency).
fn linkBenchDeps(m: *std.Build.Module) void {
    m.linkSystemLibrary("boost_context", .{ .use_pkg_config = .no, .preferred_link_mode = .static });
}

/// Zig's compiler runtime exports weak memcpy/memmove/memset that then replace glibc's for the
/// whole process (libsnappy included: 43% of a scan's samples sat in its byte-wise memmove).
/// Artifacts therefore leave it out and take the few helpers they need (128-bit division)
/// from the system compiler's libgcc.
fn noCompilerRt(b: *std.Build, c: *std.Build.Step.Compile) void {
    c.bundle_compiler_rt = false;
    const out = b.run(&.{ "gcc", "-print-libgcc-file-name" });
    c.root_module.addObjectFile(.{ .cwd_relative = std.mem.trim(u8, out, " \n") });
}

/// lib/pkgconfig/ringscan.pc, relocatable (its prefix is found from the file's own place).
/// `pkg-config --libs ringscan` links the shared library; `--static` adds Libs.private, every
/// library the static archive needs.
fn installPkgConfig(b: *std.Build) void {
    var private = std.ArrayList(u8).init(b.allocator);
    for (sys_libs) |l| private.writer().print(" -l{s}", .{l}) catch @panic("oom");
    const text = b.fmt(
        \\prefix=${{pcfiledir}}/../..
        \\includedir=${{prefix}}/include
        \\libdir=${{prefix}}/lib
        \\
        \\Name: ringscan
        \\Description: Embeddable Parquet scan runtime (io_uring, Arrow C Data Interface)
        \\Version: {d}.{d}.{d}
        \\Cflags: -I${{includedir}}
        \\Libs: -L${{libdir}} -lringscan
        \\Libs.private:{s}
        \\
    , .{ version.major, version.minor, version.patch, private.items });
    const wf = b.addWriteFiles();
    const pc = wf.add("ringscan.pc", text);
    b.getInstallStep().dependOn(&b.addInstallFileWithDir(pc, .lib, "pkgconfig/ringscan.pc").step);
}

pub fn build(b: *std.Build) void {
    const target = b.standardTargetOptions(.{});
    const optimize = b.option(std.builtin.OptimizeMode, "optimize", "Debug, ReleaseSafe, ReleaseFast (default), ReleaseSmall") orelse .ReleaseFast;

    const lib_mod = b.createModule(.{ .target = target, .optimize = optimize, .pic = true });
    addLibSources(b, lib_mod, &c_flags);
    const lib = b.addLibrary(.{ .name = "ringscan", .root_module = lib_mod, .linkage = .static });
    b.installArtifact(lib);
    const so_mod = b.createModule(.{ .target = target, .optimize = optimize, .pic = true });
    addLibSources(b, so_mod, &so_flags);
    linkDeps(so_mod);
    const so = b.addLibrary(.{ .name = "ringscan", .root_module = so_mod, .linkage = .dynamic, .version = version });
    noCompilerRt(b, so);
    so.setVersionScript(b.path("scan/ringscan.map"));
    b.installArtifact(so);
    b.installFile("include/ringscan.h", "include/ringscan.h");
    installPkgConfig(b);

    const bench_mod = b.createModule(.{ .target = target, .optimize = optimize });
    if (optimize != .ReleaseFast) bench_mod.addCMacro("RINGSCAN_CHECKED", "1");
    bench_mod.addCSourceFiles(.{ .files = collect(b, bench_dir, "", &.{".c"}), .flags = &c_flags });
    bench_mod.addIncludePath(b.path("."));
    bench_mod.addIncludePath(b.path("include"));
    bench_mod.link_libc = true;
    const bench_lib = b.addLibrary(.{ .name = "ringscan_bench", .root_module = bench_mod, .linkage = .static });

    const exe_mod = b.createModule(.{ .target = target, .optimize = optimize });
    exe_mod.addCSourceFiles(.{ .files = collect(b, "cli", "", &.{".c"}), .flags = &c_flags });
    exe_mod.addIncludePath(b.path("."));
    exe_mod.addIncludePath(b.path("include"));
    exe_mod.linkLibrary(bench_lib);
    linkBenchDeps(exe_mod);
    exe_mod.linkLibrary(lib);
    linkDeps(exe_mod);
    // bench/chart.c loads cairo and fontconfig when `ringscan bench --chart` draws (dlopen),
    // and io/curl_dl.c libcurl on the first http(s):// or s3:// open: neither is linked, so
    // a process that needs neither never maps them (start-up CPU, bench/RESULTS.md).
    exe_mod.linkSystemLibrary("mimalloc", .{ .use_pkg_config = .no });
    const exe = b.addExecutable(.{ .name = "ringscan", .root_module = exe_mod });
    noCompilerRt(b, exe);
    b.installArtifact(exe);

    const tests_step = b.step("tests", "Install the package and every test program (<prefix>/tests/)");
    tests_step.dependOn(b.getInstallStep());
    const test_step = b.step("test", "Build and run every unit test program");
    for (collect(b, "tests/unit", "test_", &.{".c"})) |file| {
        const base = std.fs.path.stem(file);
        const tmod = b.createModule(.{ .target = target, .optimize = optimize });
        tmod.addCSourceFiles(.{ .files = &.{file}, .flags = &c_flags });
        tmod.addIncludePath(b.path("."));
        tmod.addIncludePath(b.path("include"));
        tmod.addIncludePath(b.path("tests"));
        if (usesBench(b, file)) {
            tmod.linkLibrary(bench_lib);
            linkBenchDeps(tmod);
        }
        tmod.linkLibrary(lib);
        linkDeps(tmod);
        const t = b.addExecutable(.{ .name = base, .root_module = tmod });
        noCompilerRt(b, t);
        const inst = b.addInstallArtifact(t, .{ .dest_dir = .{ .override = .{ .custom = "tests" } } });
        tests_step.dependOn(&inst.step);
        const run = b.addRunArtifact(t);
        run.setCwd(b.path("."));
        test_step.dependOn(&run.step);
    }
}
