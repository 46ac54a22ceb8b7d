#!/usr/bin/env python3
"""Compares suitsim's identification of the Staubli TX40 with FIGAROH's.

Usage: tx40_table.py IDENTIFICATION_JSON TX40_BP_CSV [VALIDATION_JSON]

IDENTIFICATION_JSON: `suitsim identify` on the whole logs (docs/tx40.md);
TX40_BP_CSV: FIGAROH's published base parameters (examples/staubli_TX40/
results/TX40_bp_5.csv: expression, OLS value, OLS %std, WLS value, WLS %std);
VALIDATION_JSON: the run that identifies on 6 s and validates on 3 s.
Prints the Markdown tables of docs/tx40.md.

Conventions. suitsim's offset tau_o is on the drive's side (tau = k_T u +
tau_o, A(6)); FIGAROH's off is on the model's side, so off = -tau_o. The
coupled motor 6 (motor side J, b, c through theta_m6 = 32 (q5 + q6)) is
FIGAROH's Iam6 = 32*32 J, fvm6 = 32*32 b, fsm6 = 32 c. Base parameters are
matched where both are the same combination of standard parameters up to a
common factor; suitsim's value is divided by that factor.
"""
import json
import re
import sys


def figaroh(path):
    out = {}
    for line in open(path):
        parts = line.rsplit(",", 4)
        if len(parts) != 5:
            continue
        out[parts[0].strip()] = (float(parts[1]), float(parts[2]))
    return out


def terms_of_figaroh(expr):
    """'Ixx2 - 1.0*Iyy2 - 0.05*m3' -> {'Ixx2': 1, 'Iyy2': -1, 'm3': -0.05}."""
    terms = {}
    for sign, coef, name in re.findall(r"([+-]?)\s*(?:([0-9.eE+-]+)\*)?([A-Za-z]+[0-9]+)", expr):
        c = float(coef) if coef else 1.0
        terms[name] = -c if sign == "-" else c
    return terms


def terms_of_suitsim(standard):
    """['link_2.Ixx', '1.000000 link_3.Ixx', ...] -> FIGAROH's names."""
    def name(s):
        link, p = s.split(".")
        k = link.split("_")[1]
        p = {"mcx": "mx", "mcy": "my", "mcz": "mz"}.get(p, p)
        return p + k
    terms = {name(standard[0]): 1.0}
    for s in standard[1:]:
        c, n = s.split()
        terms[name(n)] = terms.get(name(n), 0.0) + float(c)
    return terms


def same_up_to_factor(a, b):
    if set(a) != set(b):
        return None
    k = next(iter(a))
    f = a[k] / b[k]
    for n in a:
        if abs(a[n] - f * b[n]) > 1e-4 * max(1.0, abs(a[n])):
            return None
    return f


def pct(x):
    return "n/a" if x is None else "%.2g %%" % (100.0 * x)


def main():
    ident = json.load(open(sys.argv[1]))
    pub = figaroh(sys.argv[2])
    jp = ident["joint_parameters"]
    print("| joint | term | suitsim | rel. std | FIGAROH (OLS) | rel. std | difference |")
    print("|---|---|---|---|---|---|---|")
    for i in range(1, 7):
        p = jp["joint_%d" % i]
        rows = [("fv (N m s/rad)", p["viscous"], "fv%d" % i, 1.0),
                ("fs (N m)", p["coulomb"], "fs%d" % i, 1.0),
                ("off (N m)", p["offset"], "off%d" % i, -1.0),
                ("Ia (kg m^2)", p["armature"], "Ia%d" % i, 1.0)]
        for label, est, key, sign in rows:
            ours = sign * est["identified"]
            rs = est["relative_std"]
            if key in pub:
                theirs, theirs_std = pub[key]
                diff = "%+.1f %%" % (100.0 * (ours - theirs) / abs(theirs))
                sigma = max(abs(ours) * (rs or 0.0), abs(theirs) * theirs_std / 100.0)
                if abs(ours - theirs) > sigma:
                    diff += " (beyond both std)"
                print("| %d | %s | %.4g | %s | %.4g | %.3g %% | %s |" % (i, label, ours, pct(rs), theirs, theirs_std, diff))
            else:
                print("| %d | %s | %.4g | %s | (in a base parameter) | | |" % (i, label, ours, pct(rs)))
    for d in ident.get("coupled_drives", []):
        r = list(d["row"].values())
        cross, side = r[0] * r[1], r[-1]
        for label, key, scale, figkey in [("J, as Iam6 (kg m^2)", "rotor_inertia", cross, "Iam6"),
                                          ("b, as fvm6 (N m s/rad)", "viscous", cross, "fvm6"),
                                          ("c, as fsm6 (N m)", "coulomb", side, "fsm6")]:
            ours = scale * d[key]["identified"]
            rs = d[key]["relative_std"]
            theirs, theirs_std = pub[figkey]
            print("| motor %s | %s | %.4g | %s | %.4g | %.3g %% | %+.1f %% |" %
                  (d["motor"], label, ours, pct(rs), theirs, theirs_std, 100.0 * (ours - theirs) / abs(theirs)))
    print()
    print("| base parameter (FIGAROH's expression) | suitsim | rel. std | FIGAROH (OLS) | rel. std |")
    print("|---|---|---|---|---|")
    matched = 0
    for b in ident["base_parameters"]:
        ours = terms_of_suitsim(b["standard"])
        for expr, (theirs, theirs_std) in pub.items():
            if re.fullmatch(r"(fv|fs|off|Ia|Iam|fvm|fsm)[0-9]+", expr):
                continue
            f = same_up_to_factor(ours, terms_of_figaroh(expr))
            if f is None:
                continue
            matched += 1
            print("| %s | %.4g | %s | %.4g | %.3g %% |" % (expr, b["identified"] / f, pct(b["relative_std"]), theirs, theirs_std))
    print()
    print("%d of suitsim's %d base parameters have FIGAROH's grouping." % (matched, len(ident["base_parameters"])))
    if len(sys.argv) > 3:
        v = json.load(open(sys.argv[3]))["validation"]
        print("Validation on %s (joints %s): torque RMSE %.3g N m identified, %.3g a priori; while sliding %.3g / %.3g N m." %
              (", ".join(v["trials"]), ", ".join(v["joints"]), v["torque_rmse_nm"]["identified"], v["torque_rmse_nm"]["apriori"],
               v["sliding_torque_rmse_nm"]["identified"], v["sliding_torque_rmse_nm"]["apriori"]))


if __name__ == "__main__":
    main()
