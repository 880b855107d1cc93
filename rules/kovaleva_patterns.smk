# Kovaleva et al. 2019, Fig. 1-2: attention pattern types (Vertical, Diagonal, Vertical+Diagonal,
# Block, Heterogeneous). Hand labels of maps of the embedded model (config/patterns/labels.csv,
# regenerated from config/patterns/recipe.yaml by rule pattern_features) train a classifier on
# interpretable map features; it classifies every head's map on the GLUE dev inputs of rule
# glue_attention (GLUE_SHARDS of rules/kovaleva_finetune.smk), pre-trained and fine-tuned.

import yaml

PAT_RECIPE = yaml.safe_load(open(config["kovaleva_patterns"]["recipe"]))
# the model whose maps were hand-labelled; on any other model the classifier is extrapolated
# (analysis.kovaleva.patterns.labels.label_provenance: columns labels_from, extrapolated)
PAT_LABELS_FROM = model_slug(PAT_RECIPE["model"])
PAT_SOURCES = sorted({s["folder"] for s in PAT_RECIPE["sources"]})
# model-independent outputs (the labels are of the embedded model only), named as in rules/common.smk
PAT_TABLES = "results/pattern_labels/tables"
PAT_FIGURES = "results/pattern_labels/figures"
PAT_LOGS = "logs/pattern_labels"
PAT_CATEGORY = "Kovaleva (attention patterns)"


rule pattern_features:
    """Regenerate the hand-labelled maps (recipe) and compute their features."""
    input:
        labels=config["kovaleva_patterns"]["labels"],
        recipe=config["kovaleva_patterns"]["recipe"],
        raw=[raw_sums(source) for source in PAT_SOURCES],
        code="analysis/kovaleva/patterns/features.py",  # the feature definitions: recompute when they change
    output:
        table="resources/patterns/labelled_features.csv",
        maps="resources/patterns/labelled_maps.npz",
        device="resources/patterns/pattern_features.device.json",  # the device it ran on
    log:
        f"{PAT_LOGS}/pattern_features.log",
    benchmark:
        "benchmarks/pattern_labels/pattern_features.tsv"
    # reads maps: run as soon as they exist (temp maps are then deleted; the long ones start early)
    priority: 40
    conda:
        CONDA_ENV
    threads: JOB_THREADS
    resources:
        gpu=1,
        gpu_mem_mb=job_gpu_mem_mb("pattern_features", model=PAT_RECIPE["model"]),
        mem_mb=job_mem_mb("pattern_features", model=PAT_RECIPE["model"]),
        runtime=job_runtime("pattern_features", model=PAT_RECIPE["model"]),
    script:
        "../workflow/pattern_features.py"


rule pattern_classifier:
    """Cross-validated F1 per pattern type (logistic regression and boosting); fit the chosen one."""
    input:
        table=rules.pattern_features.output.table,
        maps=rules.pattern_features.output.maps,
    output:
        table=f"{PAT_TABLES}/pattern_classifier.csv",
        confusion=f"{PAT_TABLES}/pattern_classifier.confusion.csv",
        label_shares=f"{PAT_TABLES}/pattern_classifier.label_shares.csv",
        figure=report(
            f"{PAT_FIGURES}/pattern_classifier.png", caption="../report/pattern_classifier.rst", category=PAT_CATEGORY
        ),
        model="resources/patterns/classifier.pkl",
        out_of_fold="resources/patterns/classifier_out_of_fold.csv",  # the applied classifier's, for rule patterns
    log:
        f"{PAT_LOGS}/pattern_classifier.log",
    benchmark:
        "benchmarks/pattern_labels/pattern_classifier.tsv"
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("pattern_classifier"),
        runtime=job_runtime("pattern_classifier"),
    params:
        classifier=config["kovaleva_patterns"]["classifier"],
        folds=config["kovaleva_patterns"]["cv_folds"],
        seed=config["kovaleva_patterns"]["seed"],
        labelled_model=PAT_RECIPE["model"],
        cnn_epochs=config["kovaleva_patterns"]["cnn_epochs"],
    script:
        "../workflow/pattern_classifier.py"


rule pattern_labelled_examples:
    """The first hand-labelled maps of each class (Kovaleva Fig. 1, from the labels)."""
    input:
        table=rules.pattern_features.output.table,
        maps=rules.pattern_features.output.maps,
    output:
        table=f"{PAT_TABLES}/pattern_labelled_examples.csv",
        figure=report(
            f"{PAT_FIGURES}/pattern_labelled_examples.png",
            caption="../report/pattern_labelled_examples.rst",
            category=PAT_CATEGORY,
        ),
    log:
        f"{PAT_LOGS}/pattern_labelled_examples.log",
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("pattern_labelled_examples"),
        runtime=job_runtime("pattern_labelled_examples"),
    params:
        per_class=4,
        labelled_model=PAT_RECIPE["model"],
    script:
        "../workflow/pattern_labelled_examples.py"


rule pattern_label_sheets:
    """Contact sheets of every labelled map with its hand label, for auditing (on demand, not in `all`)."""
    input:
        table=rules.pattern_features.output.table,
        maps=rules.pattern_features.output.maps,
    output:
        directory(f"{PAT_FIGURES}/pattern_label_sheets"),
    log:
        f"{PAT_LOGS}/pattern_label_sheets.log",
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("pattern_label_sheets"),
        runtime=job_runtime("pattern_label_sheets"),
    script:
        "../workflow/pattern_label_sheets.py"


rule patterns:
    """Share of each pattern type per GLUE task, pre-trained and fine-tuned (Kovaleva Fig. 2)."""
    input:
        classifier=rules.pattern_classifier.output.model,
        out_of_fold=rules.pattern_classifier.output.out_of_fold,
        pretrained=GLUE_SHARDS["pretrained"],
        finetuned=GLUE_SHARDS["finetuned"] if config["kovaleva_patterns"]["finetuned"] else [],
    output:
        table=claim_table("patterns", unit="dev input", family="finetune", finetuned_maps=True),
        layers=table("patterns", "by_layer"),
        boot=table("patterns", "boot"),  # shares on resampled dev inputs (all heads of an input together)
        predictions="resources/patterns/{model}/predictions.csv",
        figure=figure("patterns", category=PAT_CATEGORY),
    log:
        rule_log("patterns"),
    benchmark:
        rule_benchmark("patterns")
    # reads maps: run as soon as they exist (temp maps are then deleted; the long ones start early)
    priority: 40
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("patterns"),
        runtime=job_runtime("patterns"),
    params:
        spec=model_spec,
        labelled_model=PAT_RECIPE["model"],
        labels_from=PAT_LABELS_FROM,  # for the caption: extrapolated where {model} differs
        tasks=config["kovaleva_finetune"]["tasks"],
        max_inputs=config["kovaleva_patterns"]["max_inputs"],
        finetuned=config["kovaleva_patterns"]["finetuned"],
        shares=config["kovaleva_patterns"]["shares"],
        bootstrap=config["bootstrap"],  # resamples and seed of the replicate tables
        boot_variants=["finetuned"],  # the variant the claims read
    script:
        "../workflow/patterns.py"


rule pattern_examples:
    """The most confidently classified map of each type on the dev inputs (Kovaleva Fig. 1)."""
    input:
        predictions=rules.patterns.output.predictions,
        pretrained=GLUE_SHARDS["pretrained"],
    output:
        table=table("pattern_examples"),
        figure=figure("pattern_examples", category=PAT_CATEGORY),
    log:
        rule_log("pattern_examples"),
    conda:
        CONDA_ENV
    resources:
        mem_mb=job_mem_mb("pattern_examples"),
        runtime=job_runtime("pattern_examples"),
    params:
        spec=model_spec,
        labelled_model=PAT_RECIPE["model"],
        labels_from=PAT_LABELS_FROM,  # for the caption: extrapolated where {model} differs
        tasks=config["kovaleva_finetune"]["tasks"],
        min_tokens=24,  # examples drawn from inputs of at least this many word pieces (if every type has one)
    script:
        "../workflow/pattern_examples.py"


rule kovaleva_patterns:
    """Kovaleva et al. 2019 attention pattern types (Fig. 1-2): the classifier trained on the hand labels
    and its labelled examples (model-independent), then per model the share of each type per task and
    an example map of each type."""
    input:
        rules.pattern_classifier.output.table,
        rules.pattern_classifier.output.confusion,
        rules.pattern_classifier.output.label_shares,
        rules.pattern_classifier.output.figure,
        rules.pattern_labelled_examples.output.table,
        rules.pattern_labelled_examples.output.figure,
        per_model(
            rules.patterns.output.table,
            rules.patterns.output.layers,
            rules.patterns.output.boot,
            rules.patterns.output.figure,
            rules.pattern_examples.output.table,
            rules.pattern_examples.output.figure,
        ),
