# Kovaleva et al. 2019, Fig. 1-2: attention pattern types (Vertical, Diagonal, Vertical+Diagonal,
# Block, Heterogeneous). Hand labels of maps of the embedded model (config/patterns/labels.csv,
# regenerated from config/patterns/recipe.yaml) train a classifier on interpretable map
# features; it classifies every head's map on the GLUE dev inputs of rule glue_attention
# (rules/kovaleva.smk), pre-trained and fine-tuned.

import yaml

PAT = config["patterns"]
PAT_RECIPE = yaml.safe_load(open(PAT["recipe"]))
PAT_DIR = "results/pattern_labels"  # model-independent: the labels are of the embedded model only
PAT_SOURCES = sorted({s["folder"] for s in PAT_RECIPE["sources"]})


rule pattern_features:
    """Regenerate the hand-labelled maps (recipe) and compute their features."""
    input:
        labels=PAT["labels"],
        recipe=PAT["recipe"],
        raw=expand("resources/raw/{source}/SHA256SUMS", source=PAT_SOURCES),
        code="analysis/kovaleva/patterns.py",  # the feature definitions: recompute when they change
    output:
        table="resources/patterns/labelled_features.csv",
        maps="resources/patterns/labelled_maps.npz",
    threads: 2
    resources:
        gpu=1,
        mem_mb=4000,
        runtime=10,
    log:
        "logs/patterns/pattern_features.log",
    benchmark:
        "benchmarks/patterns/pattern_features.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/pattern_features.py"


rule pattern_classifier:
    """Cross-validated F1 per pattern type (logistic regression and boosting); fit the chosen one."""
    input:
        table=rules.pattern_features.output.table,
        maps=rules.pattern_features.output.maps,
    output:
        table=f"{PAT_DIR}/tables/pattern_classifier.csv",
        confusion=f"{PAT_DIR}/tables/pattern_confusion.csv",
        label_shares=f"{PAT_DIR}/tables/pattern_label_shares.csv",
        figure=report(f"{PAT_DIR}/figures/pattern_classifier.png", caption="../report/pattern_classifier.rst",
                      category="Kovaleva (attention patterns)"),
        model="resources/patterns/classifier.pkl",
    params:
        classifier=PAT["classifier"],
        folds=PAT["cv_folds"],
        seed=PAT["seed"],
        labelled_model=PAT_RECIPE["model"],
        cnn_epochs=PAT.get("cnn_epochs", 0),
    log:
        "logs/patterns/pattern_classifier.log",
    benchmark:
        "benchmarks/patterns/pattern_classifier.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/pattern_classifier.py"


rule pattern_labelled_examples:
    """The first hand-labelled maps of each class (Kovaleva Fig. 1, from the labels)."""
    input:
        table=rules.pattern_features.output.table,
        maps=rules.pattern_features.output.maps,
    output:
        examples=f"{PAT_DIR}/tables/pattern_labelled_examples.csv",
        figure=report(f"{PAT_DIR}/figures/pattern_labelled_examples.png",
                      caption="../report/pattern_labelled_examples.rst", category="Kovaleva (attention patterns)"),
    params:
        per_class=4,
        labelled_model=PAT_RECIPE["model"],
    log:
        "logs/patterns/pattern_labelled_examples.log",
    conda:
        CONDA_ENV
    script:
        "../scripts/pattern_labelled_examples.py"


rule pattern_label_sheets:
    """Contact sheets of every labelled map with its hand label, for auditing (not in `all`)."""
    input:
        table=rules.pattern_features.output.table,
        maps=rules.pattern_features.output.maps,
    output:
        directory(f"{PAT_DIR}/label_sheets"),
    log:
        "logs/patterns/pattern_label_sheets.log",
    conda:
        CONDA_ENV
    script:
        "../scripts/pattern_label_sheets.py"


rule patterns:
    """Share of each pattern type per GLUE task, pre-trained and fine-tuned (Kovaleva Fig. 2)."""
    input:
        classifier=rules.pattern_classifier.output.model,
        pretrained=glue_shards("pretrained"),
        finetuned=glue_shards("finetuned") if PAT["finetuned"] else [],
    output:
        table=table("patterns"),
        layers=table("patterns_by_layer"),
        predictions="resources/patterns/{model}/predictions.csv",
        figure=figure("patterns", "Kovaleva (attention patterns)"),
    params:
        spec=model_spec,
        tasks=GLUE_TASKS,
        max_inputs=PAT["max_inputs"],
        finetuned=PAT["finetuned"],
    log:
        rule_log("patterns"),
    benchmark:
        "benchmarks/{model}/patterns.tsv"
    conda:
        CONDA_ENV
    script:
        "../scripts/patterns.py"


rule pattern_examples:
    """The most confidently classified map of each type on the dev inputs (Kovaleva Fig. 1)."""
    input:
        predictions=rules.patterns.output.predictions,
        pretrained=glue_shards("pretrained"),
    output:
        table=table("pattern_examples"),
        figure=figure("pattern_examples", "Kovaleva (attention patterns)"),
    params:
        spec=model_spec,
        tasks=GLUE_TASKS,
        min_tokens=24,  # examples drawn from inputs of at least this many word pieces (if every type has one)
    log:
        rule_log("pattern_examples"),
    conda:
        CONDA_ENV
    script:
        "../scripts/pattern_examples.py"


ALL_TARGETS.extend(
    [rules.pattern_classifier.output.figure, rules.pattern_labelled_examples.output.figure]
    + per_model("results/{model}/figures/patterns.png", "results/{model}/figures/pattern_examples.png")
)
