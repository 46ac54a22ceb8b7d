"""How well approach A recovers the bands' stiffness as the suit gets
stiffer: every band's true stiffness scaled, the protocol run and evaluated.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/band_stiffness_study.py [--duration S] [scales...]
"""
import argparse, os, re, tempfile
import suitsim

here = os.path.dirname(os.path.abspath(__file__))
p = argparse.ArgumentParser()
p.add_argument("scales", nargs="*", type=float, default=[0.5, 1.0, 2.0])
p.add_argument("--scene", default=os.path.join(here, "..", "..", "scenes", "jvrc1_protocol.xml"))
p.add_argument("--duration", type=float)
args = p.parse_args()
text = open(args.scene).read()
for scale in args.scales:
    # Every <band>'s true stiffness times `scale`; the copy sits beside the scene so its paths still resolve.
    scaled = re.sub(r'(<band\b[^>]*\bstiffness=")([^"]+)"', lambda m: f'{m[1]}{float(m[2]) * scale:.6g}"', text)
    with tempfile.NamedTemporaryFile("w", suffix=".xml", dir=os.path.dirname(args.scene)) as f:
        f.write(scaled); f.flush()
        scene = suitsim.load_scene(f.name, duration=args.duration)
        ev = suitsim.evaluate(scene)
        report = suitsim.score(ev, ev.run.truth).to_dict()
    for suit, s in report["suits"].items():
        a = s["approach_a"]
        print(f"scale {scale:g} suit {suit}: truth {s['true_stiffness_n_per_m']:.1f} N/m, "
              f"approach A {a['stiffness_n_per_m']:.1f} N/m ({100 * a['relative_error']:+.2f} %)")
